"""How a ree, a change of ree and a win rate are written, on every screen and in the CLI's tables.

ree(1523.46)                          # "1523"      ree(1523.46, 1): "1523.5" (the standings)
signed(-87.2)                         # "-87" with U+2212, not a hyphen   signed(0.3): "±0"
signed(12.34, 1, minus="-", exact_sign=True)   # "+12.3" (the standings' change, typed minus)
percent(0.625)                        # "62%" (half to even, as Python rounds)   percent(None): ""
"""

from __future__ import annotations

MINUS = "\u2212"
"""The minus sign of a change shown in prose and on the board (a hyphen looks like a dash beside a name)."""

PLUS_MINUS_ZERO = "\u00b10"


def ree(value: float, digits: int = 0) -> str:
    """A ree, whole unless `digits` asks for tenths."""
    return f"{value:.{digits}f}"


def signed(
    value: float,
    digits: int = 0,
    *,
    minus: str = MINUS,
    zero: str = PLUS_MINUS_ZERO,
    exact_sign: bool = False,
) -> str:
    """A change of ree with its sign, to `digits` decimals: "+58", "-87" (`minus`), "±0".

    The sign is that of the figure as shown, so a change that rounds to nothing is `zero`. With `exact_sign`
    it is the value's own and only an exact 0 is `zero`: the standings and the evening's gain write +0.04 as
    "+0.0", a gain however small being a gain.
    """
    shown = value if exact_sign else round(value, digits)
    if shown > 0:
        return f"+{value:.{digits}f}"
    if shown < 0:
        return f"{minus}{-value:.{digits}f}"
    return zero


def percent(rate: float | None, absent: str = "") -> str:
    """A rate (0..1) as a whole percent, "62%"; `absent` when there is none (no match to count)."""
    return absent if rate is None else f"{rate * 100:.0f}%"
