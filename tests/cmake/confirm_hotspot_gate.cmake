# compare --confirm tests a stored hotspot regression with the sampled pairs
# also under hotspots.gate (which makes the stored verdict "regression"):
# a real program whose work shifts from g() to f() at the same total must
# fail, named f, with the gate on or off (tests/confirm/hotspot-gate.sh).
add_test(NAME confirm_hotspot_gate
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/confirm/hotspot-gate.sh $<TARGET_FILE:perfgate>)
set_tests_properties(confirm_hotspot_gate PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 900)
