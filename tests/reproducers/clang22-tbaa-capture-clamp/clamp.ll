; std::min(n, x) as clang 22 leaves it in a target region's outlined parallel
; function, reduced by hand (README.md). n arrives by value as a uintptr
; capture: its slot is stored with the TBAA type "long" and read through
; min's reference as "int". OpenMPOpt has cast the slot to addrspace(5).
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define i32 @clamp(i32 %n, i32 %x) {
  %n.slot = alloca i32, align 4
  %x.slot = alloca i32, align 4
  store i32 %n, ptr %n.slot, align 4, !tbaa !3
  store i32 %x, ptr %x.slot, align 4, !tbaa !1
  %lt = icmp slt i32 %x, %n
  %p = select i1 %lt, ptr %x.slot, ptr %n.slot
  %p5 = addrspacecast ptr %p to ptr addrspace(5)
  %v = load i32, ptr addrspace(5) %p5, align 4, !tbaa !1
  ret i32 %v
}

!0 = !{!"omnipotent char", !5, i64 0}
!1 = !{!2, !2, i64 0}
!2 = !{!"int", !0, i64 0}
!3 = !{!4, !4, i64 0}
!4 = !{!"long", !0, i64 0}
!5 = !{!"Simple C++ TBAA"}
