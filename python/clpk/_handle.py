"""The lifetime protocol every object that owns a library handle shares: `close()` (the subclass's), `with`, and a
last-resort close when the object is collected."""


class Owner:
    def close(self):  # each subclass releases its handle here
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # the interpreter may be shutting down: nothing left to release into
            pass
