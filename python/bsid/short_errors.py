#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Short messages for arguments of the wrong type.

pybind11 answers a call with an argument of the wrong type (N=500.0 for an
int) with "incompatible constructor arguments" and the whole signature, 28
parameters for map_decoder. short_type_errors(cls) makes the class's
constructor name the argument at fault instead:

    TypeError: map_decoder: N = 500.0 must be an int (write 500)

The signature is read from the class's own docstring, so it stays true as the
class changes; an error this cannot explain keeps pybind11's message.
"""

import re

from bsid_core import _type_words

__all__ = ["short_type_errors"]

# "an int", "a number (float)", ...: the core's words, as the receiver
# options' errors use them
_NAMES = dict(_type_words)


def _parameters(cls):
    """[(name, type text, has default)] of the constructor, from its docstring."""
    doc = (cls.__init__.__doc__ or "").strip().splitlines()
    if not doc:
        return None
    m = re.match(r"__init__\(self: [^,)]+(?:, (.*))?\)", doc[0])
    if not m:
        return None
    params = []
    depth, cur = 0, ""
    for ch in (m.group(1) or "") + ",":
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            part = cur.strip()
            cur = ""
            if not part or part in ("*", "/"):
                continue
            if part.startswith("*"):
                # *args, **kwargs: the receiver options, which the bindings
                # check themselves (python/bsid/bindings/receiver_keywords.h)
                params.append((part, "", True))
                continue
            name, _, rest = part.partition(":")
            ty, _, default = rest.partition("=")
            params.append((name.strip(), ty.strip(), bool(default.strip())))
            continue
        cur += ch
    return params


def _fits(value, ty):
    """Whether pybind11 would take value for a parameter of type text ty."""
    if ty == "int":
        return isinstance(value, int) and not isinstance(value, bool) or \
            type(value).__name__.startswith(("int", "uint"))
    if ty == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool) or \
            type(value).__name__.startswith("float")
    if ty == "str":
        return isinstance(value, str)
    if ty == "bool":
        return isinstance(value, bool) or type(value).__name__ == "bool_"
    if ty.endswith(".codebook") or ty.endswith(".channel_params"):
        return type(value).__name__ == ty.rsplit(".", 1)[1]
    return True  # other types: left to pybind11


def _explain(cls_name, params, args, kwargs):
    """The short message for the first argument that does not fit, or None."""
    variadic = any(p[0].startswith("*") for p in params)
    params = [p for p in params if not p[0].startswith("*")]
    given = list(zip(params, args))
    by_name = {p[0]: p for p in params}
    for key, value in kwargs.items():
        if key not in by_name and variadic:
            continue  # a receiver option: checked by the bindings
        if key not in by_name:
            close = [p[0] for p in params if p[0].lower() == key.lower()]
            hint = f" (did you mean {close[0]}?)" if close else ""
            return f"{cls_name}: no parameter named '{key}'{hint}"
        given.append((by_name[key], value))
    if len(args) > len(params) and not variadic:
        return f"{cls_name}: {len(args)} arguments given, at most {len(params)} taken"
    for (name, ty, _), value in given:
        if _fits(value, ty):
            continue
        what = _NAMES.get(ty, ty)
        if ty == "int" and isinstance(value, float) and value == int(value):
            return f"{cls_name}: {name} = {value!r} must be {what} (write {int(value)})"
        if ty.endswith(".codebook") and isinstance(value, str):
            return (f"{cls_name}: {name} must be a bsid.codebook, not the string "
                    f"{value!r}: bsid.codebook.from_spec({value!r})")
        if "." in ty:
            what = "a bsid." + ty.rsplit(".", 1)[1]
        return (f"{cls_name}: {name} = {value!r} must be {what}, not "
                f"{type(value).__name__}")
    missing = [p[0] for p in params[len(args):] if not p[2] and p[0] not in kwargs]
    if missing:
        return f"{cls_name}: missing {', '.join(missing)}"
    return None


def short_type_errors(cls):
    """Makes cls's constructor answer a wrong argument type with a short message."""
    params = _parameters(cls)
    if not params or getattr(cls, "_bsid_short_errors", False):
        return cls
    original = cls.__init__

    def __init__(self, *args, **kwargs):
        try:
            original(self, *args, **kwargs)
        except TypeError as e:
            if "incompatible constructor arguments" not in str(e):
                raise
            msg = _explain(cls.__name__, params, args, kwargs)
            if msg is None:
                raise
            raise TypeError(msg + f" (help(bsid.{cls.__name__}) lists them all)") from None

    __init__.__doc__ = original.__doc__
    cls.__init__ = __init__
    cls._bsid_short_errors = True
    return cls
