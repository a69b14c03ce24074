/* Uses only the installed public header: opens the default device and prints its name. */
#include <clpk.h>
#include <stdio.h>

int main(void) {
    clpk_context *ctx = NULL;
    clpk_status st = clpk_context_create(&ctx, NULL);
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "consumer: %s\n", clpk_status_string(st));
        return 1;
    }
    printf("consumer: clpk %s on %s\n", CLPK_VERSION_STRING, clpk_context_device_info(ctx)->name);
    clpk_context_destroy(ctx);
    return 0;
}
