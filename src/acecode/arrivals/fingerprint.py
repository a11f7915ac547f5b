"""This machine's secret, and the keyed hash that names a text in acecode's records.

The records of which texts this machine wrote, approved or screened live in the
project's state folder, which git ignores. But a repository can still carry
such files (committed with ``git add -f``, or unpacked from an archive), and a
record that said "this machine wrote this text" could then let a rule in
unscreened. So every text is named by a keyed hash (BLAKE2b in its MAC mode)
of the text under a secret that never leaves this user's home folder: a record
made elsewhere names nothing here.

The secret is 32 random bytes, hex-encoded, in
``~/.claude/acecode-user/acecode/machine-key`` (mode 0600, beside the user
layer's state, where the hook's claims live too). It is created on first use,
atomically: two processes starting at once end up with the same key. When it
can be neither read nor created (a read-only home), :func:`machine_key` gives
None and every entry counts as arrived: screened each time, never trusted.

Only ``os`` and BLAKE2b (and ``secrets`` to create a key) are imported: this runs
in the injection hook.
"""

from __future__ import annotations

import contextlib
import os

try:  # hashlib's own blake2b, without loading OpenSSL (2 ms of the hook's budget)
    from _blake2 import blake2b as _blake2b
except ImportError:  # an interpreter without the module: the same function, slower import
    from hashlib import blake2b as _blake2b

from acecode.project.layer import Layer
from acecode.project.state_folder import ensure_state_folder

KEY_NAME = "machine-key"
KEY_BYTES = 32
# Hex digits of each fingerprint: 128 bits, far beyond any playbook's size.
TAG_CHARS = 32

_cached: dict[str, bytes] = {}


def key_file() -> str:
    """``~/.claude/acecode-user/acecode/machine-key``."""
    return Layer.user().state_file(KEY_NAME)


def _read(path: str) -> bytes | None:
    try:
        with open(path, encoding="ascii") as handle:
            text = handle.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    try:
        key = bytes.fromhex(text)
    except ValueError:
        return None
    return key if len(key) >= KEY_BYTES // 2 else None


def _create(path: str) -> None:
    """Write a new key where none exists: a complete temporary file linked into place, so
    that a concurrent reader never sees a half-written key and a concurrent creator
    loses the race to the first one's key."""
    import secrets

    folder = os.path.dirname(path)
    ensure_state_folder(folder)
    temp = os.path.join(folder, f".{KEY_NAME}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with open(fd, "w", encoding="ascii") as handle:
            handle.write(secrets.token_hex(KEY_BYTES) + "\n")
        with contextlib.suppress(FileExistsError):
            os.link(temp, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)


def machine_key() -> bytes | None:
    """This machine's secret, created on first use; None when it cannot be had."""
    path = key_file()
    if path in _cached:
        return _cached[path]
    key = _read(path)
    if key is None and not os.path.exists(path):
        try:
            _create(path)
        except OSError:
            return None
        key = _read(path)
    if key is not None:
        _cached[path] = key
    return key


def fingerprint(key: bytes, text: str, scope: str = "") -> str:
    """The name of ``text`` in acecode's records: a keyed BLAKE2b hash (a MAC, RFC 7693)
    under ``key`` of ``scope`` (what the record is about, e.g. the floor's version) and
    the exact text."""
    data = f"{scope}\0{text}".encode("utf-8", "surrogatepass")
    return _blake2b(data, key=key, digest_size=TAG_CHARS // 2).hexdigest()
