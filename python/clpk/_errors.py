"""clpk.Error: a failure the C library reported, with its status and message."""

# clpk_status in lib/include/clpk.h, in enum order (CLPK_SUCCESS is 0).
STATUS_NAMES = (
    "CLPK_SUCCESS",
    "CLPK_ERROR_INVALID_ARGUMENT",
    "CLPK_ERROR_OUT_OF_MEMORY",
    "CLPK_ERROR_DEVICE_NOT_FOUND",
    "CLPK_ERROR_OPENCL",
    "CLPK_ERROR_BUILD",
    "CLPK_ERROR_UNSUPPORTED",
    "CLPK_ERROR_IO",
    "CLPK_ERROR_PARSE",
    "CLPK_ERROR_INVALID_DATA",
    "CLPK_ERROR_PROFILE",
    "CLPK_ERROR_TIMEOUT",
    "CLPK_ERROR_WRONG_RESULT",
    "CLPK_ERROR_INTERNAL",
)


def status_name(status):
    if 0 <= status < len(STATUS_NAMES):
        return STATUS_NAMES[status]
    return "CLPK_STATUS_%d" % status


class Error(RuntimeError):
    """A clpk library failure.

    Attributes: ``status`` (the clpk_status number), ``status_name`` (e.g. ``"CLPK_ERROR_INVALID_DATA"``),
    ``status_text`` (the library's text for it, e.g. ``"invalid data"``) and ``message`` (what failed: the
    library's last error on the context, or the clpk_error it filled; a failed kernel build carries the log).
    Bad Python input (wrong dtype, shape, a closed object) raises ``ValueError`` or ``TypeError`` instead.
    """

    def __init__(self, status, message="", status_text=None):
        self.status = int(status)
        self.status_name = status_name(self.status)
        self.status_text = status_text or self.status_name
        self.message = message or ""
        text = "%s (%s)" % (self.status_name, self.status_text)
        super().__init__("%s: %s" % (text, self.message) if self.message else text)
