/* Built into the program only in the clang JIT configuration (preset `gpu`).
 * Debian's libomptarget 19 does not register LLVM's NVPTX back end, so the
 * runtime's JIT stops with "no targets are registered" when it compiles the
 * embedded LLVM IR at first launch. Registering the four NVPTX pieces from a
 * constructor, before main, lets the binary run without an LD_PRELOAD. */
void LLVMInitializeNVPTXTargetInfo(void);
void LLVMInitializeNVPTXTarget(void);
void LLVMInitializeNVPTXTargetMC(void);
void LLVMInitializeNVPTXAsmPrinter(void);

__attribute__((constructor)) static void ompref_register_nvptx_backend(void) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
}
