/*
 * result_json.h - the smallest valid result JSON (docs/result-format.md),
 * for tests that load a result with one field of interest added: the text
 * up to and including "metrics", without the closing brace, so that a test
 * appends ",\"FIELD\":..." and "}".
 */
#ifndef PG_TESTS_RESULT_JSON_H
#define PG_TESTS_RESULT_JSON_H

#define PG_TEST_RESULT_JSON_HEAD                                                                   \
        "{\"schema\":\"perfgate/result/1\",\"name\":\"x\",\"command\":[\"x\"],"                    \
        "\"created\":\"2026-11-29T10:00:00Z\",\"machine\":\"default\",\"counters\":\"software\","  \
        "\"repeat\":1,\"warmup\":0,\"host\":{\"cpu\":\"c\",\"cpus\":1,\"kernel\":\"k\","           \
        "\"arch\":\"x86_64\",\"pmu\":[],\"virtualized\":true,\"perf_event_paranoid\":2,"           \
        "\"exclude_kernel\":false},\"metrics\":{}"

#endif
