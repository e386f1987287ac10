# embed.cmake - turn a text file into a C header holding it as one string
# constant, so a file kept in its own language (compare/flamegraph.js) is
# compiled into perfgate byte for byte.
#   cmake -DIN=file -DOUT=header.h -DNAME=c_identifier -P cmake/embed.cmake
# Every byte is written as a \xNN escape, so no byte of the input can end
# the string or form another escape.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" len)
set(body "")
set(pos 0)
while(pos LESS len)
  string(SUBSTRING "${hex}" ${pos} 64 chunk)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" chunk "${chunk}")
  string(APPEND body "    \"${chunk}\"\n")
  math(EXPR pos "${pos} + 64")
endwhile()
get_filename_component(src "${IN}" NAME)
file(WRITE "${OUT}.tmp"
     "/* Generated from ${src} by cmake/embed.cmake at build time; do not edit. */\n"
     "static const char ${NAME}[] =\n${body}    \"\";\n")
file(RENAME "${OUT}.tmp" "${OUT}")
