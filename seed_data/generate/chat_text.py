"""The words of chat: message templates by channel topic. Placeholders in braces are filled
with world entities (deals, accounts, people, hotels, rooms, workbooks) by `chat`.
"""

from __future__ import annotations

# Updates on open deals, each with the stages it reads naturally in (empty means any).
DEAL_UPDATES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Just moved *{opp}* to {stage}, {amount}", ("Qualification", "Needs Analysis", "Proposal", "Negotiation")),
    ("*{opp}* is now in {stage} ({amount}). Close date {close}.", ()),
    ("Update on *{opp}*: {contact} confirmed they're reviewing the proposal, {stage} at {amount}.",
     ("Proposal", "Negotiation")),
    ("Proposal for *{opp}* is out: {amount}. Targeting {close}.", ("Proposal", "Negotiation")),
    ("*{opp}* slipped a bit, {contact} needs another week for legal. Holding at {stage}.",
     ("Negotiation",)),
    ("Anyone have a contact in procurement at {account}? Working *{opp}* ({amount}).", ()),
    ("Heads up: *{opp}* might be at risk, {contact} says budget is under review at {account}.", ()),
    ("Had a great call with {contact} today, *{opp}* looks solid for {close}.",
     ("Needs Analysis", "Proposal", "Negotiation")),
    ("First call with {contact} went well, opening *{opp}* in {stage}.", ("Prospecting", "Qualification")),
    ("Pricing question on *{opp}*: they want a multi-year discount. {amount} list, thoughts?",
     ("Proposal", "Negotiation")),
)  # fmt: skip
DEAL_WON = (
    "Closed Won: *{opp}* for {amount}! Big thanks to everyone who helped.",
    ":tada: *{opp}* is signed, {amount}. {account} is live next month.",
    "We got it! *{opp}* closed at {amount}.",
)
DEAL_LOST = (
    "Lost *{opp}* ({amount}). {account} went with a competitor on price. Notes are in the CRM.",
    "*{opp}* is Closed Lost, {contact} said the project was cancelled.",
)
TRIP_BOOKED = (
    "Booked {hotel} in {city} for {check_in} to {check_out}. {purpose}",
    "I'll be in {city} {check_in} to {check_out}, staying at {hotel}. Anyone else around?",
    "Trip's set: {hotel}, {city}, {nights} nights from {check_in}.",
    "Heading to {city} on {check_in} ({purpose}). Staying at {hotel} if anyone wants dinner.",
)
TRIP_PENDING = (
    "@{manager} could you approve my stay at {hotel} ({city}, {check_in} to {check_out})? "
    "It's over the nightly cap.",
)
TRIP_CUSTOMER = (
    "Flying out to see {account} on {check_in}, staying at {hotel} in {city}.",
    "{account} onsite is confirmed for {check_in}. I'm at {hotel}, {city}.",
)
ROOM_BOOKED = (
    "Booked {room} at {office} for {purpose} on {day} at {time}.",
    "Grabbed {room} ({office}) {day} {time} for {purpose}.",
    "FYI {room} at {office} is ours on {day} from {time}: {purpose}.",
)
SHEET_NOTES = (
    "Updated *{workbook}* with this week's numbers.",
    "@{mention} can you double-check the totals in *{workbook}* before Friday?",
    "Numbers in *{workbook}* look off for a couple of rows, taking a look.",
    "Reminder: please fill in your rows in *{workbook}* by end of day.",
    "Shared *{workbook}* with the team, let me know if you can't open it.",
)
QUESTIONS = (
    "@{mention} do you have the latest on {account}?",
    "@{mention} quick one: who owns the relationship with {account} now?",
    "@{mention} can you review the deck before the {account} call?",
    "@{mention} are you joining the sync later?",
    "@{mention} could you take a look at my PR when you get a chance?",
    "@{mention} do you know who approves travel for the {office} trip?",
    "@{mention} did we ever hear back from {contact}?",
)
PHONE_NOTES = (
    "{contact} at {account} gave me a new direct line: {phone}",
    "If anyone needs to reach {contact} ({account}), their number is {phone}",
    "FYI {contact}'s mobile is {phone}, best to call after lunch their time.",
)
WELCOME = (
    "Please welcome {employee} to the {team} team! :wave:",
    "Say hi to {employee}, who joins {team} this week.",
)
ATTACH_PIPELINE = "Here's the current pipeline for {account} as a CSV."
ATTACH_ITINERARY = "Itinerary for my {city} trip attached ({hotel})."

CHATTER = {
    "general": (
        "Reminder: all-hands is Thursday at 10:00 PT. Questions for the AMA go in the doc.",
        "Benefits enrollment closes Friday, please check your selections.",
        "The office wifi password rotates on Monday, watch your email.",
        "Huge thanks to everyone who helped with the launch this week!",
        "Expense reports for last month are due by the 5th.",
        "We're hiring! Referrals get a bonus, see the careers page.",
        "Quarterly engagement survey is open until next Wednesday.",
        "Reminder that Monday is a company holiday.",
        "New security training is assigned to everyone, takes about 20 minutes.",
        "Please update your emergency contact details in the HR portal.",
    ),
    "random": (
        "Anyone up for lunch at the ramen place?",
        "Who left a blue umbrella in the kitchen?",
        "Podcast recommendations for a long flight?",
        "Coffee machine on the 3rd floor is fixed :coffee:",
        "Book club is reading Project Hail Mary this month.",
        "Happy Friday everyone!",
        "Someone brought donuts, kitchen, now.",
        "Anybody have a spare HDMI adapter?",
        "The sunset from the roof right now :sunrise:",
        "Looking for a running buddy on Tuesday mornings.",
        "Trivia night team still needs two people.",
        "Best pizza near the office, go.",
    ),
    "sales": (
        "Reminder: forecast calls are Tuesday, please have your close dates updated.",
        "New pricing sheet is live, old discounts expire end of month.",
        "Great discovery call today, the champion is super engaged.",
        "Who has a good case study for logistics customers?",
        "Pipeline review moved to 3pm.",
        "Please log your calls in the CRM, the activity report is looking thin.",
    ),
    "deals": (
        "Deal desk is open for approvals until 5pm today.",
        "Reminder: anything over 20% discount needs deal desk sign-off.",
        "End of quarter is close, let's get those order forms signed.",
    ),
    "travel": (
        "Reminder: book hotels at least a week ahead or you'll need approval.",
        "Preferred hotels are flagged in the booking tool, please use them when you can.",
        "Anyone know if the airport train is running this weekend?",
        "Per diem rates were updated for this year.",
        "If your trip is over the cap, add a note for your manager before submitting.",
    ),
    "leadership": (
        "Board deck draft is in the shared drive, comments by Wednesday please.",
        "Let's revisit hiring plans next week, some teams are ahead of budget.",
        "Offsite agenda is updated; we'll start with the pipeline review.",
        "Q-end forecast call is at 8am tomorrow.",
        "Please send me your top three risks for the quarter.",
    ),
    "eng": (
        "Deploying {service} {version} to production now.",
        "{service} {version} is out, rollback plan is in the runbook.",
        "Flaky test in {service} again, looking into it.",
        "Heads up: {service} latency is up since the last deploy, investigating.",
        "Postmortem for last week's {service} incident is up for review.",
        "Can someone review the migration for {service}? It touches the billing tables.",
        "On-call handoff: quiet week, two alerts on {service}, both resolved.",
        "Upgraded {service} to the new Postgres version in staging.",
        "Feature flag for the new search is at 50% rollout.",
        "Reminder: code freeze starts Thursday at noon.",
    ),
    "incidents": (
        "SEV2: {service} error rate elevated, investigating.",
        "Mitigated: {service} is back to normal, root cause TBD.",
        "Status page updated for the {service} degradation.",
        "Resolved. Postmortem to follow for the {service} outage.",
    ),
    "office": (
        "Fire drill on Wednesday at 11:00, please join when the alarm goes.",
        "Cleaning crew is in on Friday evening, please clear your desks.",
        "Lunch is catered today, kitchen at 12:30.",
        "The parking garage gate is broken again, use the side entrance.",
        "Package for you at reception if your name starts with M.",
        "Heating is being fixed on the 2nd floor today.",
        "We're out of oat milk, more coming tomorrow.",
        "Visitors need to be registered at the front desk from Monday.",
    ),
    "team": (
        "Standup notes are in the doc.",
        "Retro moved to Thursday.",
        "I'm out Friday, ping me if anything urgent comes up.",
        "Quarterly goals draft is ready for comments.",
        "Let's do a quick sync after lunch.",
        "Shipped it! Thanks all.",
        "Who's covering support rotation next week?",
        "Please add your topics to the weekly agenda.",
    ),
    "hiring": (
        "Two strong candidates for the senior role, debrief at 4pm.",
        "Offer accepted for the {team} opening!",
        "Please submit your interview feedback within 24 hours.",
        "We need one more interviewer for Thursday's loop.",
        "Headcount for {team} was approved for next quarter.",
    ),
    "support": (
        "Ticket backlog is down to 14, nice work everyone.",
        "Escalation from a top customer about SSO, looping in engineering.",
        "New macro for password reset questions is live.",
        "CSAT for last week: 94%.",
    ),
    "it": (
        "Laptop refresh sign-up is open for anyone on a 2021 machine.",
        "VPN maintenance tonight 22:00 to 23:00.",
        "Please enable MFA on your account by Friday.",
        "New monitors arrived, ping IT if you need one.",
    ),
    "marketing": (
        "Webinar registrations are at 340, up from last month.",
        "New landing page is live, feedback welcome.",
        "Booth for the trade show is confirmed.",
        "Blog post on the release goes out Tuesday.",
    ),
    "finance": (
        "Month-end close starts Monday, please submit expenses by then.",
        "Reminder: invoices over $10k need two approvals.",
        "Budget reforecast templates are out.",
        "Vendor payments run on Thursdays.",
    ),
    "dm": (
        "Got a minute?",
        "Thanks for covering the call earlier!",
        "Can we move our 1:1 to tomorrow?",
        "Lunch today?",
        "Sent you the doc, let me know what you think.",
        "Running 5 minutes late.",
        "Nice job in the meeting today.",
        "Did you see the email from legal?",
        "Back from vacation, catching up now.",
    ),
    "project": (
        "Kickoff notes are in the project doc.",
        "Milestone 1 is done, on to the migration.",
        "We're wrapping this up, archiving the channel soon.",
        "Final retro is scheduled for Friday.",
        "Launch checklist is complete.",
    ),
    "social": (
        "This month's book: The Soul of a New Machine.",
        "Meeting in the library corner at 12:30.",
        "Who has the next pick?",
    ),
}
REPLIES = (
    "On it.",
    "Thanks!",
    "Done.",
    "Sounds good.",
    "Can you share more details?",
    "+1",
    "Nice work!",
    "I'll take a look this afternoon.",
    "Agreed.",
    "Let's discuss in the sync.",
    "Updated, thanks for flagging.",
    "Looping in the team.",
    "Great news :tada:",
    "Following.",
    "Will do.",
)
SERVICES = ("search-api", "billing-service", "auth-gateway", "ingest-worker", "web-app",
            "notifications", "reporting-api", "sync-engine", "export-service", "mobile-api")  # fmt: skip
EMOJI = ("thumbsup", "tada", "eyes", "white_check_mark", "heart", "raised_hands", "rocket",
         "pray", "joy", "fire", "100", "clap")  # fmt: skip
PROJECTS = ("website-relaunch", "soc2-audit", "office-move", "billing-migration",
            "brand-refresh", "api-v1-sunset", "crm-cleanup", "holiday-party")  # fmt: skip
