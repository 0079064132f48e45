"""Shared pieces of the Python interop peer: the generated code's location, protocols, payloads.

The payloads are byte for byte those of Java's io.thriftnio.testkit.Payloads, so a payload made on
one side can be checked on the other.
"""

import os
import sys

# The generated code sits in the source tree (testkit/src/main/gen-py): importing it must not leave
# __pycache__ folders there.
sys.dont_write_bytecode = True

_HERE = os.path.dirname(os.path.abspath(__file__))
GEN_PY = os.environ.get("THRIFTNIO_GEN_PY") or os.path.normpath(
    os.path.join(_HERE, "..", "..", "..", "..", "testkit", "src", "main", "gen-py"))

if not os.path.isdir(os.path.join(GEN_PY, "thriftnio_bench")):
    sys.exit("bench_common: no generated Python in %s (expected: the thriftnio_bench package that "
             "scripts/regenerate-thrift.sh writes; set THRIFTNIO_GEN_PY to its parent folder)"
             % GEN_PY)
sys.path.insert(0, GEN_PY)

from thrift.protocol import TBinaryProtocol, TCompactProtocol  # noqa: E402

PROTOCOLS = ("binary", "compact")

SMALL = 300
MEDIUM = 3 * 1024
LARGE = 3 * 1024 * 1024

# BenchHandler's constants: the reference semantics every peer checks.
MAX_COUNT = 100000
MAX_DEPTH = 60
BAD_ARGUMENT = 400

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def protocol_factory(name):
    """The stock protocol factory for --protocol NAME."""
    if name == "binary":
        return TBinaryProtocol.TBinaryProtocolFactory()
    if name == "compact":
        return TCompactProtocol.TCompactProtocolFactory()
    raise ValueError("protocol: %r (expected: one of %s)" % (name, ", ".join(PROTOCOLS)))


def payload(size, seed):
    """Payloads.of(size, seed): byte i is ((i + 1) * GOLDEN ^ seed) ^ (that >>> 29), low 8 bits."""
    seed &= _MASK64
    out = bytearray(size)
    for i in range(size):
        x = (((i + 1) * _GOLDEN) & _MASK64) ^ seed
        out[i] = (x ^ (x >> 29)) & 0xFF
    return bytes(out)


def bad_argument_message(name, value, expected):
    """BenchHandler.badArgument's message: 'count: -1 (expected: 0..100000)'."""
    return "%s: %d (expected: %s)" % (name, value, expected)
