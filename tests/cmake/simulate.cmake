# --counters simulated: fixture programs run under valgrind's cachegrind
# (simwork: a hot loop plus a forked child; avx512: an instruction valgrind
# 3.19 rejects) and a stand-in valgrind that writes broken cachegrind files
# (fixtures/fake-valgrind/valgrind). Built without sanitizers: valgrind and
# ASan do not mix.
foreach(fx simwork avx512)
  add_executable(simulate_fx_${fx} ${CMAKE_SOURCE_DIR}/tests/fixtures/simulate/${fx}.c)
  set_target_properties(simulate_fx_${fx} PROPERTIES
                        OUTPUT_NAME sim-${fx}
                        RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
  target_compile_options(simulate_fx_${fx} PRIVATE -O1 -g -fno-omit-frame-pointer -fno-sanitize=all)
  target_link_options(simulate_fx_${fx} PRIVATE -fno-sanitize=all)
  if(TARGET test_simulate)
    add_dependencies(test_simulate simulate_fx_${fx})
  endif()
endforeach()
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures/fake-valgrind)
configure_file(${CMAKE_SOURCE_DIR}/tests/fixtures/simulate/fake-valgrind.sh
               ${CMAKE_CURRENT_BINARY_DIR}/fixtures/fake-valgrind/valgrind COPYONLY
               FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                WORLD_READ WORLD_EXECUTE)
if(TEST test_simulate)
  # valgrind runs are CPU-heavy: alone, so the timing of other tests is not disturbed
  set_tests_properties(test_simulate PROPERTIES RUN_SERIAL TRUE)
endif()

# A real simulated result validates against docs/result.schema.json, and the
# compare verdict with causes (a 1% regression) against the verdict schema.
# Skips (77) without valgrind or ajv.
add_test(NAME simulate_schemas COMMAND sh -c "
  set -e
  command -v valgrind >/dev/null || { echo 'skip: valgrind is not installed'; exit 77; }
  ajv=${CMAKE_SOURCE_DIR}/tests/node/node_modules/.bin/ajv
  [ -x \"$ajv\" ] || { echo \"skip: $ajv missing (tests/node/install.sh)\"; exit 77; }
  t=$(mktemp -d \"\${TMPDIR:-/tmp}/pg-simschema-XXXXXX\")
  trap 'rm -rf \"$t\"' EXIT
  cd \"$t\"
  fx=${CMAKE_CURRENT_BINARY_DIR}/fixtures/sim-simwork
  printf '{\"benchmarks\": [{\"name\": \"w\", \"argv\": [\"%s\", \"20000\"]}]}' \"$fx\" > a.json
  printf '{\"benchmarks\": [{\"name\": \"w\", \"argv\": [\"%s\", \"20400\"]}]}' \"$fx\" > b.json
  \"$PERFGATE_BIN\" run -q --counters simulated --repeat 1 --warmup 0 --no-profile --out a a.json
  \"$PERFGATE_BIN\" run -q --counters simulated --repeat 1 --warmup 0 --no-profile --out b b.json
  s=0; \"$PERFGATE_BIN\" compare a --results b --json v.json >/dev/null || s=$?
  [ $s -eq 1 ] || { echo \"compare exited $s, want 1\"; exit 1; }
  grep -q '\"causes\"' v.json || { echo 'no causes in the verdict'; exit 1; }
  \"$ajv\" validate --spec=draft2020 --strict=true --strict-required=false -c ajv-formats -s ${CMAKE_SOURCE_DIR}/docs/result.schema.json -d a/w.json
  \"$ajv\" validate --spec=draft7 -s ${CMAKE_SOURCE_DIR}/tests/golden/compare/verdict.schema.json -d v.json
  echo 'simulated schemas ok'")
set_tests_properties(simulate_schemas PROPERTIES ENVIRONMENT "${PG_TEST_ENV}"
                     SKIP_RETURN_CODE 77 TIMEOUT 120 PASS_REGULAR_EXPRESSION "simulated schemas ok")
