/* TEST(suite, name): a Criterion test that also fails when the body leaks,
 * under AddressSanitizer. Criterion reports a test before LeakSanitizer's
 * exit-time check runs, so the check is asked for right after the body. */
#ifndef VKFX_TESTS_LEAK_H
#define VKFX_TESTS_LEAK_H

#include <criterion/criterion.h>

#if defined(__SANITIZE_ADDRESS__)
#define CHECK_LEAKS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CHECK_LEAKS 1
#endif
#endif
#ifdef CHECK_LEAKS
int __lsan_do_recoverable_leak_check(void);
#endif

static inline void leak_check(void)
{
#ifdef CHECK_LEAKS
    cr_assert_eq(__lsan_do_recoverable_leak_check(), 0, "memory leaked (report above)");
#endif
}

#define TEST(suite, name)                                                                          \
    static void suite##_##name##_body(void);                                                       \
    Test(suite, name)                                                                              \
    {                                                                                              \
        suite##_##name##_body();                                                                   \
        leak_check();                                                                              \
    }                                                                                              \
    static void suite##_##name##_body(void)

#endif
