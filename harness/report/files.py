"""The report's files on disk."""

import os


def write_if_changed(path, text):
    """Write `text` to `path` unless it holds it already, through a
    temporary name, so an interrupted run leaves each file whole: a
    report from the committed results rewrites none of its 1,200 files
    (unlinking and creating them took 1.3 s)."""
    try:
        with open(path, encoding="utf-8") as stream:
            if stream.read() == text:
                return
    except (OSError, UnicodeDecodeError):
        pass
    tmp = path + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(tmp, path)
    except OSError as err:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise OSError(err.errno, err.strerror, path) from None
