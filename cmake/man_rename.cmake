# man_rename.cmake - a man page as installed: cross references name the installed commands
# (pmf(1) -> rvs-pmf(1)), and the page of a renamed program (NAME listed in RENAMED) takes
# its installed name in title, NAME line and synopsis, with a first paragraph saying which
# name is which (rvskit(7), NAMES).
#   cmake -DIN=man/man1/pmf.1 -DOUT=build/man/man1/rvs-pmf.1 "-DRENAMED=pmf;partition;..." -P
cmake_minimum_required(VERSION 3.18)
file(READ "${IN}" page)
set(page "\n${page}")
get_filename_component(name "${IN}" NAME_WE)
foreach(p ${RENAMED})
  string(REGEX REPLACE "\n\\.BR ${p} \\(1\\)" "\n.BR rvs\\\\-${p} (1)" page "${page}")
endforeach()
if(name IN_LIST RENAMED)
  string(TOUPPER "${name}" upper)
  string(REGEX REPLACE "\n\\.TH ${upper} " "\n.TH RVS-${upper} " page "${page}")
  string(REGEX REPLACE "\n\\.SH NAME\n${name} " "\n.SH NAME\nrvs\\\\-${name} " page "${page}")
  string(REGEX REPLACE "\n\\.B ${name}\n" "\n.B rvs\\\\-${name}\n" page "${page}")
  string(REGEX REPLACE "\n\\.SH DESCRIPTION\n"
    "\n.SH DESCRIPTION\nInstalled as\n.BR rvs\\\\-${name} ;\nin the build tree and in\n.I PREFIX/libexec/rvskit\nit is\n.BR ${name} ,\nthe name the examples below use (see\n.BR rvskit (7),\nNAMES).\n.PP\n"
    page "${page}")
endif()
string(REGEX REPLACE "^\n" "" page "${page}")
file(WRITE "${OUT}" "${page}")
