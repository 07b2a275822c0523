"""The report's data files (changes.ini, lineage.ini, debate.ini): INI
sections with a fixed set of keys, read with errors that name the file,
the section and what to do."""

import configparser


def sections(path, keys, optional=(), error=ValueError, why=""):
    """[(section name, {key: value})] of `path` in order: every key of
    `keys` present, no other than those and `optional`.  `error` is the
    exception raised; `why` says, for a missing or empty file, what
    reads it."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        with open(path, encoding="utf-8") as stream:
            parser.read_file(stream)
    except FileNotFoundError:
        raise error("%s is missing: %s" % (path, why)) from None
    except configparser.Error as err:
        raise error("%s: %s" % (path, err)) from None
    if not parser.sections():
        raise error("%s: no sections (%s)" % (path, why))
    out = []
    for name in parser.sections():
        section = parser[name]
        where = "%s [%s]" % (path, name)
        missing = [k for k in keys if k not in section]
        if missing:
            raise error("%s: missing %s" % (where, ", ".join(missing)))
        unknown = [k for k in section if k not in keys + optional]
        if unknown:
            raise error("%s: unknown key %s; the keys are %s" % (
                where, ", ".join(unknown), ", ".join(keys + optional)))
        out.append((name, dict(section)))
    return out
