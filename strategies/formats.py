"""String formats that tool schemas use and hypothesis-jsonschema lacks (or draws slowly)."""

from __future__ import annotations

from datetime import timezone

from hypothesis import strategies as st

__all__ = ["FORMATS"]

_UTC = st.just(timezone.utc)

#: Only formats whose values are easy to get exactly right.  Others are drawn as
#: ordinary strings: the reference, like jsonschema by default, does not
#: assert formats, so they cannot change an expected status.
FORMATS: dict[str, st.SearchStrategy[str]] = {
    "uuid": st.uuids().map(str),
    "date-time": st.datetimes(timezones=_UTC).map(lambda d: d.isoformat()),
    "date": st.dates().map(lambda d: d.isoformat()),
    "time": st.times(timezones=_UTC).map(lambda t: t.isoformat()),
    "email": st.from_regex(r"\A[a-z]{1,8}@[a-z]{1,8}\.(com|org|net)\Z"),
}
