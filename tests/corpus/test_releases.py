"""The releases a bisection covers: two years back by the index's dates, the one in use then, or the newest few."""

from __future__ import annotations

import datetime

import pytest

from toolfuzz.corpus.releases import FALLBACK_RELEASES, choose, upload_dates
from toolfuzz.errors import UsageError

TODAY = datetime.date(2026, 12, 4)
FOUND = ["0.9.0", "1.0.0", "1.1.0rc1", "1.1.0", "1.2.0", "1.10.0", "2.0.0b2"]
DATES = {"0.9.0": datetime.date(2023, 1, 2), "1.0.0": datetime.date(2024, 6, 1), "1.1.0": datetime.date(2025, 1, 5),
         "1.2.0": datetime.date(2025, 9, 9), "1.10.0": datetime.date(2026, 11, 30)}


def test_without_a_range_the_releases_of_two_years_and_the_one_in_use_when_they_began():
    chosen, how = choose("pkg", FOUND, None, DATES, TODAY)
    # 1.0.0 was in use on 2024-12-04; 0.9.0 and the pre-releases are left out; 1.10.0 sorts after 1.2.0.
    assert chosen == ["1.0.0", "1.1.0", "1.2.0", "1.10.0"]
    assert how == "in use since 2024-12-04"


def test_a_release_the_index_gives_no_date_for_is_kept_and_no_dates_at_all_means_the_newest_few():
    assert choose("pkg", [*FOUND, "1.11.0"], None, DATES, TODAY)[0][-1] == "1.11.0"
    many = [f"1.{i}.0" for i in range(30)]
    chosen, how = choose("pkg", many, None, {}, TODAY)
    assert chosen == many[-FALLBACK_RELEASES:] and how == f"the {FALLBACK_RELEASES} newest (the index gives no dates)"


def test_between_takes_the_final_releases_in_that_range_and_an_empty_range_is_one_error():
    assert choose("pkg", FOUND, ("1.0.0", "1.2.0"), None, TODAY) == (["1.0.0", "1.1.0", "1.2.0"],
                                                                       "between 1.0.0 and 1.2.0")
    with pytest.raises(UsageError, match=r"^--between 3\.0 4\.0: no release of pkg in that range$"):
        choose("pkg", FOUND, ("3.0", "4.0"), None, TODAY)


def test_the_index_says_when_each_release_came_out():
    dates = upload_dates("httpx-sse")
    # The first upload of each release, wheel or sdist (PyPI's JSON simple pages, PEP 691 and 700).
    assert dates["0.1.0"] == datetime.date(2023, 2, 5) and dates["0.4.0"] == datetime.date(2023, 12, 22)
    assert upload_dates("toolfuzz-no-such-package-zz") == {}
