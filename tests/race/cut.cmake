# Writes OUT: the file IN with the text CUT removed, which must occur in it
# exactly once (a fixture that silently stayed the original would prove nothing).
#   cmake -DIN=<file> -DOUT=<file> -DCUT=<text> -P cut.cmake
cmake_minimum_required(VERSION 3.25)
file(READ "${IN}" _text)
string(FIND "${_text}" "${CUT}" _first)
string(FIND "${_text}" "${CUT}" _last REVERSE)
if(_first EQUAL -1 OR NOT _first EQUAL _last)
  message(FATAL_ERROR "cut.cmake: '${CUT}' is not in ${IN} exactly once: the fixture needs updating")
endif()
string(REPLACE "${CUT}" "" _text "${_text}")
file(WRITE "${OUT}.tmp" "// Generated from ${IN} with '${CUT}' removed: a race fixture (tests/race/CMakeLists.txt).\n${_text}")
file(RENAME "${OUT}.tmp" "${OUT}")
