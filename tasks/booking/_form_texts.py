"""What colleagues type into the booking forms: trip names (the reservation form's "Trip
name"), reasons for a stay outside the travel policy, managers' comments when they turn a
request down, and meeting titles."""

from __future__ import annotations

import random

_TRIP_NAMES = (
    "{city} customer visit",
    "{city} quarterly planning",
    "Onsite workshop in {city}",
    "{city} team offsite",
    "Partner summit {city}",
    "{city} sales kickoff",
    "Hiring loop in {city}",
    "{city} product training",
    "Board prep in {city}",
    "{city} account review",
)
JUSTIFICATIONS = (
    "The conference hotel block is sold out; this is the closest place with rooms.",
    "The customer asked us to stay near their office, and nothing closer is in policy.",
    "Travelling with the team; this place fits all of us for less than separate rooms.",
    "The event venue is next door and the dates are fixed by the customer.",
    "Cheaper options are all over an hour away from the customer's site.",
    "I need a quiet workspace for the week of the audit; this listing has one.",
)

REJECTIONS = (
    "Please pick a place under the nightly cap.",
    "Let's talk about the budget for this trip first.",
    "Please rebook once the dates are firm.",
    "Too expensive for this trip; choose a preferred hotel instead.",
    "We can't approve this one; please find something in policy.",
    "Not this quarter, sorry: the travel budget is spent.",
)

MEETING_TITLES = (
    "Design review",
    "Pipeline sync",
    "Interview debrief",
    "Customer prep",
    "Sprint retro",
    "Budget check-in",
    "Roadmap walkthrough",
    "Onboarding session",
    "Launch readiness",
    "Hiring committee",
)


def trip_name(rng: random.Random, city: str) -> str:
    """A trip name for a stay in `city`."""
    return rng.choice(_TRIP_NAMES).format(city=city)


def justification(rng: random.Random) -> str:
    """A reason for a stay outside the policy, long enough for the booking form."""
    return rng.choice(JUSTIFICATIONS)


def rejection(rng: random.Random) -> str:
    """A manager's reason for turning a request down."""
    return rng.choice(REJECTIONS)


def meeting_title(rng: random.Random) -> str:
    """A meeting's title."""
    return rng.choice(MEETING_TITLES)


__all__ = [
    "JUSTIFICATIONS",
    "MEETING_TITLES",
    "REJECTIONS",
    "justification",
    "meeting_title",
    "rejection",
    "trip_name",
]
