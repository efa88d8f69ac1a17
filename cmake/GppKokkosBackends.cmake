# What a preset names against the Kokkos found. GPP_EXPECT_DEVICES lists the backends a
# preset needs, its default execution space first (SERIAL, OPENMP, THREADS, CUDA, HIP).
# kokkos_check(DEVICES ...) only asks that each is present, so the `serial` preset took a
# Threads or OpenMP Kokkos and ran every host policy on that backend. Here the Kokkos
# found must make the first name its default execution space, and a preset whose default
# is a host backend refuses a second parallel host backend beside it. Works on an
# installed Kokkos (Kokkos_DEVICES) and an in-tree one (KOKKOS_ENABLED_DEVICES) alike;
# tests/cmake/check_kokkos_backends.cmake tests it.

# gpp_kokkos_devices(<out> <device>...): the names in one spelling: upper case, and
# THREADS for Kokkos 3.4's PTHREAD (Kokkos_ENABLE_PTHREAD then, Kokkos_ENABLE_THREADS
# from 3.6 on).
function(gpp_kokkos_devices out)
  set(_gpp_r "")
  foreach(_gpp_d IN LISTS ARGN)
    string(TOUPPER "${_gpp_d}" _gpp_d)
    if(_gpp_d STREQUAL "PTHREAD")
      set(_gpp_d THREADS)
    endif()
    list(APPEND _gpp_r ${_gpp_d})
  endforeach()
  if(_gpp_r)
    list(REMOVE_DUPLICATES _gpp_r)
  endif()
  set(${out} "${_gpp_r}" PARENT_SCOPE)
endfunction()

# gpp_kokkos_default_space(<out> <device>...): the backend Kokkos makes its default
# execution space: a device backend if there is one, else the parallel host backend, else
# Serial (the order of KOKKOS_ENABLE_DEFAULT_DEVICE_TYPE_* in Kokkos_Macros.hpp, 3.4 to 5.x).
function(gpp_kokkos_default_space out)
  gpp_kokkos_devices(_gpp_devs ${ARGN})
  foreach(_gpp_d CUDA HIP SYCL OPENACC OPENMPTARGET OPENMP THREADS HPX SERIAL)
    if(_gpp_d IN_LIST _gpp_devs)
      set(${out} ${_gpp_d} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

# gpp_kokkos_backend_problem(<out> <expected> <found>): empty when the Kokkos whose
# backends are the list <found> serves a preset that names the list <expected>, else one
# sentence saying why not.
function(gpp_kokkos_backend_problem out expected found)
  gpp_kokkos_devices(_gpp_want ${expected})
  gpp_kokkos_devices(_gpp_have ${found})
  string(REPLACE ";" "+" _gpp_have_text "${_gpp_have}")
  if(NOT _gpp_have_text)
    set(_gpp_have_text "no backend")
  endif()
  set(${out} "" PARENT_SCOPE)
  if(NOT _gpp_want)
    return()
  endif()
  set(_gpp_missing "")
  foreach(_gpp_d IN LISTS _gpp_want)
    if(NOT _gpp_d IN_LIST _gpp_have)
      list(APPEND _gpp_missing ${_gpp_d})
    endif()
  endforeach()
  if(_gpp_missing)
    string(REPLACE ";" ", " _gpp_missing "${_gpp_missing}")
    set(${out} "this preset needs Kokkos with ${_gpp_missing}; the Kokkos found has ${_gpp_have_text}" PARENT_SCOPE)
    return()
  endif()
  list(GET _gpp_want 0 _gpp_named)
  gpp_kokkos_default_space(_gpp_default ${_gpp_have})
  if(NOT _gpp_default STREQUAL _gpp_named)
    set(${out} "this preset runs on ${_gpp_named}, but the Kokkos found (${_gpp_have_text}) makes ${_gpp_default} its default execution space: use a preset for ${_gpp_default} (CMakePresets.json), or a Kokkos whose default is ${_gpp_named}" PARENT_SCOPE)
    return()
  endif()
  if(_gpp_named MATCHES "^(SERIAL|OPENMP|THREADS|HPX)$")
    foreach(_gpp_d OPENMP THREADS HPX)
      if(_gpp_d IN_LIST _gpp_have AND NOT _gpp_d STREQUAL _gpp_named)
        set(${out} "this preset runs on ${_gpp_named}, but the Kokkos found (${_gpp_have_text}) also has the host backend ${_gpp_d}: use a Kokkos with ${_gpp_named} as its only parallel host backend" PARENT_SCOPE)
        return()
      endif()
    endforeach()
  endif()
endfunction()
