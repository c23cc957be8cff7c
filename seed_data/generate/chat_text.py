"""The words of chat: what people post about each topic, how colleagues reply, and who posts
company notices.

Templates hold alternations ("[Heads up|FYI]", see `variants`) and placeholders in braces
that `chat` fills with world entities (deals, accounts, contacts, people, hotels, rooms,
workbooks) and with figures, days and times. A `Topic` keeps a post's replies on the post's
subject: a reply to a benefits reminder talks about benefits, a reply to a deal update about
that deal.

Some sentences are read back by task templates and keep their shape: "Just moved *{opp}* to
{stage}, {amount}", the won-deal openings ("Closed Won: *", ":tada: *…* is signed", "We got
it! *"), the welcomes ("Please welcome … to the ", "Say hi to …, who joins "), room bookings
naming a day as "Wed Aug 27", the phone notes ("…'s mobile is", "… gave me a new direct
line:", "needs to reach … (…), their number is"), the figures chat.edit_number corrects and
the misplaced questions chat.move_question moves. Deal and workbook names are the only bold
text in a post.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Topic:
    """What people say about one subject.

    `roots` start a conversation; `replies` are what colleagues answer; `answers` what the
    poster says back; `things` how a settling reply names the subject ("the dental
    question"); `owners` the teams (or departments) whose people post it, empty for anyone;
    `weight` how often it comes up among its channel's topics.
    """

    roots: tuple[str, ...]
    replies: tuple[str, ...]
    answers: tuple[str, ...] = ()
    things: tuple[str, ...] = ()
    owners: tuple[str, ...] = ()
    weight: float = 1.0


# Last replies that settle a thread: the next step and, by who says it, its owner. Each
# names the subject through {thing} and holds no word of the other two.
CLOSERS: dict[str, tuple[str, ...]] = {
    "sync": (
        "Let's discuss {thing} in the sync.",
        "[Good points all round.|Parking this here.|Lots to unpack.] Let's discuss {thing} in "
        "the sync.",
        "Let's discuss {thing} in [the|tomorrow's|Thursday's|the weekly] sync.",
    ),
    "afternoon": (
        "I'll take a look at {thing} this afternoon.",
        "[Leave it with me,|On my list,|Thanks for raising it,] I'll take a look at {thing} "
        "this afternoon.",
        "I'll take a look this afternoon and [report back|circle back|post here] on {thing}.",
    ),
    "updated": (
        "Updated {thing}, thanks for flagging.",
        "[Good catch!|Oops, my bad.|Fixed.] Updated {thing}, thanks for flagging.",
        "Updated {thing} [just now|a minute ago], thanks for flagging.",
    ),
}
# Words a settling reply's {thing} must not hold (they would make it read as another).
CLOSER_WORDS = ("sync", "discuss", "afternoon", "look", "update")


# Deals --------------------------------------------------------------------------------------

# Updates on open deals, each with the stages it reads naturally in (empty means any).
DEAL_UPDATES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Just moved *{opp}* to {stage}, {amount}", ("Qualification", "Needs Analysis", "Proposal", "Negotiation")),
    ("*{opp}* is now in {stage} ({amount}). [Close date|Target close|Expected close] {close}.", ()),
    ("Update on *{opp}*: {contact} [confirmed they're reviewing|is walking their CFO through|has shared internally] the "
     "proposal, {stage} at {amount}.", ("Proposal", "Negotiation")),
    ("Proposal for *{opp}* is out: {amount}. [Targeting|Aiming for|Hoping to sign by] {close}.", ("Proposal", "Negotiation")),
    ("*{opp}* slipped a bit, {contact} needs another [week|two weeks|sprint] for [legal|procurement|the security "
     "review]. Holding at {stage}.", ("Negotiation", "Proposal")),
    ("Anyone have a contact in [procurement|legal|finance|IT] at {account}? Working *{opp}* ({amount}).", ()),
    ("Heads up: *{opp}* might be at risk, {contact} says [budget is under review|there's a reorg|a competitor is "
     "undercutting us|the project lost its sponsor] at {account}.", ()),
    ("Had a [great|really good|solid] call with {contact} today, *{opp}* looks [solid|on track|real] for a {close} close date.",
     ("Needs Analysis", "Proposal", "Negotiation")),
    ("First call with {contact} went well, opening *{opp}* in {stage}.", ("Prospecting", "Qualification")),
    ("Pricing question on *{opp}*: they want a multi-year discount. {amount} list, thoughts?", ("Proposal", "Negotiation")),
    ("Pricing question on *{opp}*: {contact} is asking [for 15% off|to split payment quarterly|for a "
     "ramp in year one] on {amount}. [Thoughts?|Who signs off on that?|How have we handled this before?]",
     ("Proposal", "Negotiation")),
    ("Discovery with {contact} on *{opp}*: [they need SSO and audit logs|the pain is manual reporting|their "
     "current tool is end of life|they want to consolidate three tools]. [Next step is a demo.|Booking a "
     "technical deep dive.|Sending a recap tonight.]", ("Prospecting", "Qualification", "Needs Analysis")),
    ("*{opp}* [needs a security review|has a security questionnaire|needs a DPA] before it can move past {stage}. "
     "[Who can help?|Any volunteers from the SE team?|Sending it to the usual crew.]", ("Needs Analysis", "Proposal", "Negotiation")),
    ("[Legal redlines|Redlines on the MSA|Paper] for *{opp}* came back from {contact}. [Mostly the liability cap.|Two "
     "sticking points: payment terms and auto-renewal.|Nothing scary, sending to legal.]", ("Negotiation",)),
    ("Forecast note: calling *{opp}* [commit|best case|upside] for {close}, {amount}.", ("Proposal", "Negotiation", "Needs Analysis")),
    ("{contact} at {account} wants a [reference call|pilot|proof of concept] before committing to *{opp}*. "
     "[Anyone have a happy customer in {industry}?|Can we do a two-week pilot?|Thoughts on scope?]",
     ("Qualification", "Needs Analysis", "Proposal")),
    ("Demo for *{opp}* is [booked|set|confirmed] for {close_soon}, {contact} is bringing [their ops lead|two "
     "engineers|the budget owner].", ("Qualification", "Needs Analysis", "Proposal")),
    ("Champion check: {contact} is [still with us|pushing hard internally|a bit quiet] on *{opp}* ({stage}, {amount}).", ()),
    ("Order form for *{opp}* [is with|went to] {contact} for signature, {amount}. [Fingers crossed for|Chasing "
     "for] {close}.", ("Negotiation",)),
    ("Next step on *{opp}*: {next_step}. [Owner is me.|I'll send the invite.|Targeting this week.]", ()),
)  # fmt: skip
DEAL_WON = (
    "Closed Won: *{opp}* for {amount}! [Big thanks to everyone who helped.|Thanks {colleague} for the "
    "demo support.|Great work by the whole team.|{contact} signed this morning.]",
    "Closed Won: *{opp}*, {amount}. [{account} starts onboarding next month.|Took four calls and one "
    "very long security review.|Multi-year, which makes finance happy.]",
    ":tada: *{opp}* is signed, {amount}. [{account} is live next month.|Kickoff with {contact} is next week.|"
    "Handing over to customer success now.]",
    ":tada: *{opp}* is signed! {amount} [with {account}|from {contact}'s team|after a long "
    "procurement cycle].",
    "We got it! *{opp}* closed at {amount}. [Thank you {colleague}!|{contact} was a great champion.|"
    "Onboarding call is being scheduled.]",
    "We got it! *{opp}* is Closed Won, {amount}[| with {account}]. [Drinks on me.|Notes are in the CRM.|"
    "On to the next one.]",
)
DEAL_LOST = (
    "Lost *{opp}* ({amount}). {account} went with a competitor on [price|features|timing]. [Notes are in "
    "the CRM.|Lessons learned doc to follow.|We'll revisit at renewal time.]",
    "*{opp}* is Closed Lost, {contact} said the project was [cancelled|shelved until next year|folded into "
    "another initiative].",
    "Bad news on *{opp}*: {account} [froze all new spend|picked the incumbent|decided to build in-house]. "
    "Marking it Closed Lost at {amount}.",
)
DEAL_REPLIES = (
    "Nice! Is {contact} still the one signing [for {account}|on their side]?",
    "What's the discount on the {account} [deal|proposal] so far?",
    "[Happy to|I can] join the next call with {account} if you want [an SE|a second voice|help on pricing].",
    "Do we have legal's redlines for {account} yet?",
    "Is the {account} close date still {close}?",
    "[Who's|Is anyone] the exec sponsor on the {account} side?",
    "{amount} is a good number for {account}. Any chance of a multi-year term?",
    "Did procurement at {account} [send their vendor forms|ask for a security questionnaire] yet?",
    "[I worked with|I know] {contact} from a previous deal, happy to make an intro to their [CFO|CTO].",
    "Can you add the next step for the {account} deal in the CRM?",
    "How confident are we in {close} for {account}? Forecast call is [tomorrow|Tuesday].",
    "We did a similar [pilot|proposal|pricing structure] for another {industry} customer, I'll send you the deck.",
    "Is {account} comparing us against anyone else on this deal?",
    "[Love it.|Great progress.] What does {contact} need from us to get the contract signed?",
    "Let me know if you need deal desk approval for the {account} pricing.",
)
DEAL_ANSWERS = (
    "Yes, {contact} is [still our champion|the economic buyer|the one with the budget].",
    "[No redlines yet,|Redlines expected] by {close_soon}. I'll chase {contact}.",
    "Discount is [10%|12%|8%] for now, [deal desk approved it|within policy].",
    "Close date for {account} holds at {close} [unless procurement drags|for now].",
    "[Thanks,|Appreciate it,] I'll loop you into the next {account} call.",
    "{account} is also looking at [two other vendors|one competitor|building it themselves], pricing is the battleground.",
    "Added the next step for {account} to the opportunity in the CRM.",
)
DEAL_WON_REPLIES = (
    "Congrats! [Huge win.|Well deserved.|:tada:] Who's running onboarding for {account}?",
    "Great work on {account}! Was it multi-year in the end?",
    "Congrats on closing {account}, that contract took a while.",
    "Nice one! What made {account} sign with us over the competitor?",
    "Congrats! Can we use {account} as a reference customer?",
)
DEAL_WON_ANSWERS = (
    "Thanks! Onboarding for {account} kicks off [next week|on {close_soon}] with customer success.",
    "[Three|Two]-year term, and {account} asked about the Analytics add-on already.",
    "{contact} says they're happy to be a reference once {account} is live.",
)
DEAL_LOST_REPLIES = (
    "Ouch. Was it price or features at {account}?",
    "Sorry to hear about {account}. Any chance they come back at renewal time?",
    "Who did {account} pick instead?",
)
DEAL_LOST_ANSWERS = (
    "Mostly price, {account} had a hard budget cap.",
    "We'll check in with {account} in six months, the deal could come back.",
)
DEAL_THINGS = (
    "the {account} pricing",
    "the close plan for {account}",
    "the {account} discount ask",
    "the {account} paperwork",
    "the next step for {account}",
    "the {account} close date",
)

# Trips and rooms ----------------------------------------------------------------------------

TRIP_BOOKED = (
    "Booked my hotel for the {city} trip: {hotel}, {check_in} to {check_out}. {purpose}",
    "I'll be in {city} {check_in} to {check_out}, staying at {hotel}. [Anyone else around?|Happy to "
    "meet up.|Coffee anyone?]",
    "Trip's set: {hotel}, {city}, {nights} from {check_in}.",
    "Heading to {city} on {check_in} ({purpose}). Staying at {hotel} if anyone wants dinner.",
    "[Travel update:|FYI, trip booked:] {city} {check_in} to {check_out}, {hotel}. {purpose}",
    "Hotel for {city} is [booked|confirmed]: {hotel}, {nights}. [First time there, tips "
    "welcome.|Went with the preferred rate.|Close to the office.]",
)
TRIP_PENDING = (
    "@{manager} could you approve my stay at {hotel} ({city}, {check_in} to {check_out})? "
    "It's over the nightly cap.",
    "@{manager} [quick approval needed|when you have a sec, approval needed] for {hotel} in {city}, "
    "{nights} from {check_in}. [The cheaper hotels were full.|It's next to the customer site.|"
    "Conference rates are high that week.]",
)
TRIP_CUSTOMER = (
    "Flying out to see {account} on {check_in}, staying at {hotel} in {city}.",
    "{account} onsite is confirmed for {check_in}. I'm staying at {hotel}, {city}.",
    "[Heading to|Visiting] {account} in {city} {check_in} to {check_out}. [Agenda is|Plan is] [the QBR|a "
    "workshop with their ops team|a renewal conversation]. Staying at {hotel}.",
)
TRIP_REPLIES = (
    "Safe travels! [The hotel bar at|Breakfast at] {hotel} is [decent|great].",
    "I'll be in {city} [that week|around then] too, dinner near {hotel}?",
    "Did you book [a flight|the train] to {city} yet? Fares are going up.",
    "Remember to add the {city} trip to the travel sheet for finance.",
    "Is {hotel} within the nightly cap for {city}?",
    "[Try|If you have time, try] the [ramen place|tapas bar|old market] near {hotel}, it's a short walk.",
    "How many nights in {city} in the end?",
    "Do you need a [taxi|car] from the airport in {city}? The office has an account.",
    "Per diem for {city} went up this year, check the travel policy.",
)
TRIP_ANSWERS = (
    "Thanks! {nights} at the hotel, back on {check_out}.",
    "Yes, booked the flight [last week|yesterday]. [Aisle seat secured.|Red-eye, sadly.]",
    "It's within the cap for {city}, [no approval needed|I checked the policy].",
    "[Dinner sounds great,|Happy to meet up,] I'm free the first night of the trip.",
)
TRIP_THINGS = ("the {city} trip", "the {city} booking", "the hotel approval", "the travel sheet")
PENDING_ANSWERS = (
    "Approved. [Next time try the preferred hotels first.|Enjoy {city}.|Makes sense given the dates.]",
    "[Looking now.|On it.] Is there anything cheaper near the [customer|office] in {city}?",
    "Approved in the booking tool, [have a good trip|safe travels].",
)

ROOM_BOOKED = (
    "Booked {room} at {office} for {purpose} on {day} at {time}.",
    "Grabbed {room} ({office}) {day} {time} for {purpose}.",
    "FYI {room} at {office} is ours on {day} from {time}: {purpose}.",
    "[Room's booked:|Reserved] {room}, {office}, {day} at {time}[| for {purpose}].",
    "{purpose}: {room} at {office}, {day} {time}. [Dial-in is in the invite.|Whiteboard is in there.|"
    "Bring your laptops.]",
)
ROOM_REPLIES = (
    "Does {room} have a [working projector|video link|big screen] now?",
    "Can we [move|push] the {room} booking 30 minutes? I have a clash at {time}.",
    "[Thanks!|Great.] Is there a dial-in in {room} for people not at {office}?",
    "{room} is tiny, do we fit [eight|ten|six] people?",
    "Can you add me to the invite for {room}?",
    "I'll bring the whiteboard markers, the ones in {room} are dead.",
)
ROOM_ANSWERS = (
    "Video link for {room} is in the calendar invite.",
    "{room} fits [eight|ten] if we grab two chairs from next door.",
    "[Added you.|Sent the invite.] See you in {room}.",
)
ROOM_THINGS = ("the room booking", "the {room} booking", "the meeting invite")

# Sheets ------------------------------------------------------------------------------------

SHEET_NOTES = (
    "Updated *{workbook}* with this week's numbers.",
    "@{mention} can you double-check the totals in *{workbook}* before {weekday}?",
    "Numbers in *{workbook}* look off for [a couple of|two|three] rows, taking a look.",
    "Reminder: please fill in your rows in *{workbook}* by end of [day|{weekday}].",
    "Shared *{workbook}* with the team, let me know if you can't open it.",
    "Added a [new tab|summary tab|pivot] to *{workbook}* [for the {quarter} review|so totals are easier to "
    "read|that splits it by owner].",
    "*{workbook}* now has [a filter on owner|the formulas fixed|last month's figures]. [Shout if anything "
    "breaks.|Have a look before {weekday}.]",
    "@{mention} the totals in *{workbook}* look off for [your team's rows|the {quarter} rows], can "
    "you check before {weekday}?",
    "@{mention} can you add your numbers to *{workbook}* by {weekday}?",
    "Can everyone [check|confirm] their rows in *{workbook}*? [The total moved a lot since last week.|"
    "Finance needs it by {weekday}.]",
)
SHEET_REPLIES = (
    "The totals column in the workbook skips [row 12|the last row|two rows], can you check the formula?",
    "My rows in the sheet are [done|in], [let me know if anything looks odd|I added two new ones].",
    "Can you give me edit access to *{workbook}*?",
    "Which tab should I use, the one with [{quarter}|this month] in the name?",
    "The numbers in the sheet don't match the CRM for [one deal|two deals], want me to fix them?",
    "Could we add a [column for close date|filter by owner|subtotal per team] to the sheet?",
)
SHEET_ANSWERS = (
    "Good catch, the formula in the sheet was [missing a row|pointing at the old tab].",
    "[Gave you edit access to the workbook.|Shared the workbook again with edit rights.]",
    "Use the [first tab|summary tab] of the workbook, the others feed into it.",
)
SHEET_THINGS = ("the totals in the sheet", "the workbook formulas", "the sheet's numbers")

# Questions that mention someone -----------------------------------------------------------

QUESTIONS: tuple[Topic, ...] = (
    Topic(
        roots=(
            "@{mention} do you have the latest on {account}?",
            "@{mention} [any news|anything new] on the {account} renewal?",
        ),
        replies=(
            "Following, I [also need|need] the latest on {account} [for the forecast|before "
            "my call].",
        ),
        answers=(
            "[Yes,|Sure,] I'll send you the latest on {account} [in a bit|after lunch|today]: "
            "[renewal is on track|they asked for a pricing review|usage is up].",
            "Latest on {account}: [the renewal paperwork is with legal|their champion left|a "
            "proposal is out]. Notes are in the CRM.",
        ),
        things=("the {account} notes", "the {account} account update"),
    ),
    Topic(
        roots=("@{mention} quick one: who owns the relationship with {account} now?",),
        replies=("I think [customer success|the account owner in the CRM] has {account} now.",),
        answers=(
            "{account} is with [me|our team] for now, [happy to intro you|ping me anytime "
            "about the account].",
        ),
        things=("the {account} account owner", "the {account} owner field in the CRM"),
    ),
    Topic(
        roots=(
            "@{mention} can you review the deck before the {account} call?",
            "@{mention} can you send me the [notes|recording] from [yesterday's|the] {account} "
            "call?",
            "@{mention} do you have [ten|fifteen|five] minutes [today|on {weekday}] to go over "
            "the {account} account plan?",
        ),
        replies=("+1, I'd like the {account} [deck|call notes|account plan] too.",),
        answers=(
            "Reviewing the {account} [deck|plan] now, [comments soon|looks good so far].",
            "[Sent|Shared] the {account} [notes|recording|account plan] [by DM|in the doc].",
            "[Sure,|Happy to,] let's go over the {account} plan on {weekday}.",
        ),
        things=("the {account} deck", "the {account} account plan", "the {account} call notes"),
    ),
    Topic(
        roots=("@{mention} did we ever hear back from {contact}?",),
        replies=("I emailed {contact} [last week|on Monday] too, no reply yet.",),
        answers=(
            "Not yet, I'll chase {contact} [today|tomorrow] and [call|email] their [office|team].",
            "[Yes,|We did:] {contact} [wants a call next week|is reviewing the proposal|asked for "
            "references].",
        ),
        things=("the follow-up with {contact}",),
    ),
    Topic(
        roots=("@{mention} are you joining the {meeting} [later|at {time}|on {weekday}]?",),
        replies=("I'll join the {meeting} too if there's room.",),
        answers=(
            "[Joining,|I'll be there,] thanks for the [reminder|heads up] about the {meeting}.",
        ),
        things=("the {meeting} agenda",),
    ),
    Topic(
        roots=(
            "@{mention} could you take a look at my PR [for {service}|when you get a chance]?",
            "@{mention} could you review my PR for {service}? [It's small.|It touches the "
            "API.|Tests are green.]",
        ),
        replies=("I can review the {service} PR too if {mention_name} is busy.",),
        answers=(
            "Reviewing the {service} PR now, [left two comments|approved with nits|one "
            "question on the tests].",
        ),
        things=("the {service} PR", "the PR comments"),
    ),
    Topic(
        roots=("@{mention} do you know who approves travel for the {office} trip?",),
        replies=("Travel approval is your manager, it's in the travel policy.",),
        answers=("Travel for the {office} trip goes to your manager in the booking tool.",),
        things=("the travel approval", "the {office} trip booking"),
    ),
    Topic(
        roots=(
            "@{mention} who's the best person to ask about [the {service} API|SSO setup|data "
            "exports] for {account}?",
        ),
        replies=("Solutions engineering knows the {service} setup for {account} best.",),
        answers=(
            "Ask the solutions engineer on {account}, they set up [SSO|the API|the exports] "
            "for them.",
        ),
        things=("the {account} technical contact", "the {account} setup notes"),
    ),
)

# Phone numbers ------------------------------------------------------------------------------

PHONE_NOTES = (
    "{contact} at {account} gave me a new direct line: {phone}",
    "If anyone needs to reach {contact} ({account}), their number is {phone}",
    "FYI {contact}'s mobile is {phone}, best to call [after lunch their time|in the morning|before "
    "their standup].",
    "[New|Updated] number for {contact} at {account}: {phone}. [The old one goes to "
    "voicemail.|They moved desks.|Use this one going forward.]",
    "{contact} ({account}) asked us to use {phone} from now on[| for anything urgent].",
)
PHONE_REPLIES = (
    "Thanks, is that number in the CRM for {contact} yet?",
    "Is that {contact}'s mobile or the office line?",
    "Good to know, I had an old number for {contact}.",
    "Can you update {contact}'s phone in the CRM too?",
)
PHONE_ANSWERS = (
    "It's {contact}'s direct line, [mobile is still the old one|they prefer calls there].",
    "[Updating the CRM now.|I'll fix the CRM record for {contact}.]",
)
PHONE_THINGS = ("the phone number in the CRM", "{contact}'s number", "{contact}'s contact record")

# Welcomes -----------------------------------------------------------------------------------

WELCOME = (
    "Please welcome {employee} to the {team} team! :wave:",
    "Please welcome {employee} to the {team} team, [joining us from|most recently at] {previous}. "
    "[Say hello!|Make them feel at home.]",
    "Say hi to {employee}, who joins {team} this week.",
    "Say hi to {employee}, who joins {team} as {title}. [First day today!|They're based in {city}.]",
)
WELCOME_REPLIES = (
    "Welcome {first}! [Great to have you on board.|Let me know if you want a tour of {team}'s projects.|"
    "Coffee on me your first week.]",
    "Welcome aboard, {first}! [Happy first day.|Glad you joined.|Ping me with any questions.]",
    "Welcome to the team {first} :wave:",
    "[Hi|Hello] {first}, welcome! [I'm your onboarding buddy, DM me anytime.|Looking forward to working "
    "with you.]",
)
WELCOME_ANSWERS = (
    "Thanks everyone for the warm welcome!",
    "[Thank you!|Thanks all!] Excited to get started with {team}.",
)
WELCOME_THINGS = ("the onboarding plan", "the onboarding checklist", "the first-week schedule")

# Attachments -------------------------------------------------------------------------------

ATTACH_PIPELINE = (
    "Here's the current pipeline for {account} as a CSV.",
    "[Attached|Exported] the {account} pipeline [as a CSV|from the CRM] for [the QBR|tomorrow's "
    "forecast|anyone who asked].",
)
ATTACH_ITINERARY = (
    "Itinerary for my {city} trip attached ({hotel}).",
    "[Attaching|Here's] my {city} itinerary, {hotel}, {check_in} to {check_out}.",
)
PIPELINE_REPLIES = (
    "Thanks, does the {account} pipeline export include closed deals?",
    "The amounts in the {account} pipeline look right to me.",
)
ITINERARY_REPLIES = (
    "Thanks, added your {city} trip to the travel sheet.",
    "Safe travels to {city}!",
)


# Chatter ------------------------------------------------------------------------------------

_GENERAL: dict[str, Topic] = {
    "enrollment": Topic(
        roots=(
            "Benefits [open enrollment|enrollment] closes {weekday} {day}, please check your "
            "[selections|medical and dental choices|dependents] in the HR portal.",
            "[Reminder:|Heads up:] [open enrollment|benefits enrollment] runs until {day}. If you "
            "do nothing, your {year} [medical|dental|vision] plan rolls over.",
            "New this year: the [dental|vision] plan now covers [orthodontics|two cleanings|"
            "contact lenses], details in the benefits guide. Enrollment closes {day}.",
        ),
        replies=(
            "Does the [dental|vision] change apply to dependents too?",
            "Is the HSA contribution in the {year} plans the same as last year?",
            "Where do I find the [plan comparison|benefits guide] in the HR portal?",
            "Can I change my [medical|dental] plan after enrollment closes if I move?",
            "Is there a [benefits webinar|broker session] before enrollment closes on {day}?",
        ),
        answers=(
            "Yes, dependents get the same [dental|vision] coverage.",
            "The [plan comparison|benefits guide] is under Benefits in the HR portal, top right.",
            "Only with a qualifying life event after enrollment closes, ping me and we'll look.",
            "Broker session for enrollment questions is {weekday} at {time}, invite is out.",
        ),
        things=(
            "the dental coverage question",
            "the enrollment FAQ",
            "the benefits guide",
            "the plan comparison",
        ),
        owners=("People Operations",),
    ),
    "perks": Topic(
        roots=(
            "The [wellness|learning|home office] stipend is now ${stipend} a year, claim it "
            "through the HR portal.",
            "FSA [deadline|claims deadline]: submit {year} receipts by {day} or the balance is "
            "lost.",
            "Parental leave policy is updated: [16|20] weeks fully paid for all parents. The "
            "benefits page has the details.",
            "Commuter benefit is live from {month}: [transit passes|bike repairs|parking] are "
            "covered up to ${limit} a month.",
        ),
        replies=(
            "Does the stipend cover [gym memberships|online courses|a standing desk]?",
            "Can FSA receipts be submitted from the phone app?",
            "Does the parental leave policy apply to people already on leave?",
            "Is the commuter benefit pre-tax?",
        ),
        answers=(
            "The stipend covers [gym|courses|equipment], keep the receipt for the HR portal.",
            "FSA claims work from the app, photo of the receipt is enough.",
            "The new parental leave policy applies to anyone on leave from {day}.",
        ),
        things=(
            "the stipend policy",
            "the FSA claims page",
            "the parental leave FAQ",
            "the benefits page",
        ),
        owners=("People Operations",),
    ),
    "hr_admin": Topic(
        roots=(
            "Payroll runs a day early this month ({day}) because of the holiday.",
            "Please update your emergency contact details in the HR portal by {day}.",
            "Reminder that {weekday} {day} is a company holiday, enjoy the long weekend.",
            "Time off requests for [the holidays|{month}] need to be in the HR portal by {day}.",
        ),
        replies=(
            "Is the holiday on {day} for every office or just the US?",
            "My emergency contact page in the HR portal gives an error, anyone else?",
            "Does the early payroll run change the expense reimbursement date too?",
            "Can time off requests still be changed after {day} in the HR portal?",
        ),
        answers=(
            "Offices outside the US follow their local holiday calendar.",
            "Fixed the HR portal error on the emergency contact page, try again.",
            "Payroll and reimbursements both land on {day}.",
        ),
        things=("the holiday calendar", "the HR portal page", "the payroll date"),
        owners=("People Operations",),
    ),
    "wifi": Topic(
        roots=(
            "The office wifi password rotates on {weekday}, watch your email for the new one.",
            "New [guest|office] wifi network is live: {ssid}. The old one switches off {day}.",
            "Wifi on the {floor} floor will be [down|patchy] {weekday} {time} to {time_end} for "
            "[new access points|network maintenance].",
        ),
        replies=(
            "Does the wifi change affect the [guest|conference room] network too?",
            "Will my laptop reconnect to the new wifi on its own?",
            "Is the {floor} floor wifi outage also affecting the VPN?",
        ),
        answers=(
            "The guest wifi keeps its password, only the office network changes.",
            "Laptops managed by IT pick up the new wifi profile automatically.",
        ),
        things=("the wifi notice", "the wifi profile", "the network maintenance window"),
        owners=("IT", "Infrastructure"),
    ),
    "security": Topic(
        roots=(
            "Please enable MFA on your account by {day}, [the login page will nag you from "
            "{weekday}|it takes two minutes with the authenticator app].",
            "New security training is assigned to everyone, takes about {minutes} minutes. "
            "Due {day}.",
            "[Phishing alert:|Heads up:] emails pretending to be from [payroll|the CEO|IT] are "
            "going around. Don't click, report them to the IT helpdesk.",
            "Password manager licenses are [ready|assigned], install it by {day}.",
        ),
        replies=(
            "My MFA [codes|prompts] stopped working after the [phone|OS] update, who can help?",
            "The security training link [gives a 404|asks me to log in twice], anyone else?",
            "Got one of those phishing emails this morning, reported it to IT.",
            "Does the password manager work on [Linux|my phone|Firefox]?",
        ),
        answers=(
            "For MFA resets file an IT ticket and we'll reset the authenticator within the hour.",
            "Fixed the security training link, [try again|it should work now].",
            "Thanks for reporting the phishing email, we've blocked the sender.",
        ),
        things=(
            "the MFA reset",
            "the training link",
            "the phishing report",
            "the password manager install",
        ),
        owners=("IT", "Infrastructure"),
    ),
    "devices": Topic(
        roots=(
            "Laptop refresh sign-up is open for anyone on a {laptop_year} machine, form closes "
            "{day}.",
            "VPN maintenance [tonight|on {weekday}] {time} to {time_end}, expect a short drop.",
            "OS update {os_version} is rolling out to laptops on {weekday}, save your work "
            "before you leave.",
        ),
        replies=(
            "Will the VPN drop kill my [upload|build]? I'm on a long one.",
            "Is the laptop refresh for {laptop_year} machines only?",
            "Will the OS update need a restart during the day?",
        ),
        answers=(
            "VPN drops for a minute or two, [long uploads should resume|builds will retry].",
            "Laptop refresh is for {laptop_year} and older machines.",
            "The OS update installs overnight, one restart in the morning.",
        ),
        things=("the laptop refresh form", "the VPN window", "the OS update schedule"),
        owners=("IT", "Infrastructure"),
    ),
    "allhands": Topic(
        roots=(
            "Reminder: all-hands is {weekday} at {time} PT. Questions for the AMA go in the doc.",
            "[Next|This month's] all-hands is on {day}: {quarter} results, the roadmap and a demo "
            "from {team}. Send AMA questions by {weekday}.",
            "Thanks all for a great all-hands on {weekday}. Slides and the recording are in the "
            "shared drive.",
            "[Big news:|Exciting news:] we're opening an office in {new_city}. More at the "
            "all-hands on {weekday}.",
        ),
        replies=(
            "Will the all-hands be recorded for the [APAC|Europe] offices?",
            "Can we submit AMA questions anonymously for the all-hands?",
            "Where's the all-hands recording? I couldn't find it in the drive.",
            "Will the {new_city} office be hiring locally? Asking for the all-hands.",
        ),
        answers=(
            "Yes, the all-hands recording goes in the shared drive the same day.",
            "The AMA doc accepts anonymous questions, use the form at the top.",
        ),
        things=("the all-hands recording", "the AMA doc", "the all-hands slides"),
        owners=("Executive", "People Operations"),
        weight=0.8,
    ),
    "survey": Topic(
        roots=(
            "Our [annual|quarterly] engagement survey is open until {day}. [It's anonymous.|It "
            "takes ten minutes.] Please fill it in.",
            "Engagement survey results: {pct}% [participation|response rate], [thank you|best "
            "yet]. Team-level survey results go to managers {weekday}.",
        ),
        replies=(
            "Will we see the engagement survey results by team?",
            "Is the survey really anonymous for small teams?",
        ),
        answers=("Survey results are only shown for groups of five or more, so yes, anonymous.",),
        things=("the survey results", "the survey FAQ"),
        owners=("People Operations",),
        weight=0.5,
    ),
    "offsite": Topic(
        roots=(
            "The company offsite is [confirmed|booked] for {month} in {new_city}, [agenda to "
            "follow|save the dates].",
            "Offsite [travel|hotel] bookings for {month} are open, please book through the travel "
            "tool by {day}.",
        ),
        replies=(
            "Is the offsite agenda going to include team time?",
            "Can we bring partners to the offsite dinner?",
            "Does the offsite hotel have a shuttle from the airport?",
        ),
        answers=("The offsite agenda has a team afternoon on day two.",),
        things=("the offsite agenda", "the offsite hotel list"),
        owners=("Executive", "Business Operations", "People Operations"),
        weight=0.4,
    ),
    "expenses": Topic(
        roots=(
            "Expense reports for {month} are due by the 5th, [receipts attached please|late ones "
            "roll to next month].",
            "Corporate card statements are in, please reconcile your expenses by {day}.",
            "Reminder: expenses over ${limit} need [a receipt|manager approval] in the expense "
            "tool.",
            "[New|Updated] travel and expense policy is published: per diems changed for "
            "[{city}|most cities]. Read it before your next trip.",
        ),
        replies=(
            "Does the expense tool take [photos of receipts|forwarded email receipts]?",
            "I missed the {month} expense deadline, can I still submit?",
            "Which approval do I need for a team dinner expense over ${limit}?",
            "Is the new per diem already live in the expense tool?",
        ),
        answers=(
            "Yes, the expense tool reads photos and forwarded receipts.",
            "Submit it now, late expense reports roll into next month's payment run.",
            "Team dinners need your manager's approval in the expense tool first.",
        ),
        things=(
            "the expense deadline",
            "the receipt rules",
            "the expense policy",
            "the per diem table",
        ),
        owners=("Finance",),
        weight=0.6,
    ),
    "referrals": Topic(
        roots=(
            "We're hiring! [{count} open roles|Roles open] across {team} and more. Referrals get "
            "a ${bonus} bonus, see the careers page.",
            "Referral bonus is [doubled|${bonus}] for [engineering|sales] roles until {day}.",
            "New [opening|role]: {role} on the {team} team. Know someone? Send them the careers "
            "page for the referral.",
            "Interview training for new interviewers on {weekday} at {time}, sign up if you want "
            "to join hiring loops.",
        ),
        replies=(
            "Does the referral bonus apply to contractors we refer?",
            "Is the {role} opening remote-friendly?",
            "I have a friend who'd be great for the {team} role, where do I submit the referral?",
            "Is interview training required before joining a hiring loop?",
        ),
        answers=(
            "Submit referrals through the careers page, there's a form for employees.",
            "The referral bonus pays after the new hire's first 90 days.",
            "The {role} opening is hybrid, [two|three] days in the office.",
        ),
        things=("the referral form", "the {role} opening", "the referral bonus"),
        owners=("Recruiting", "People Operations"),
        weight=0.6,
    ),
    "kudos": Topic(
        roots=(
            "Shout-out to {colleague} for [jumping on the customer escalation|running the "
            "onboarding for new hires|fixing the {service} bug at midnight|the {account} demo].",
            "Kudos to {team} for [hitting the {quarter} goal early|the smooth launch|closing out "
            "the audit].",
            "{colleague} just hit [five|three|ten] years with us. Congrats and thank you!",
            "Huge shout-out to {team} for the launch this week! [Customers are already using "
            "it.|Usage is up {pct}% already.]",
        ),
        replies=(
            "Well deserved, congrats {colleague}!",
            "Congrats {colleague}! :tada:",
            "Kudos from my team too, {colleague} helped us a lot this quarter.",
            "Congrats to {team}, the launch went so smoothly.",
            "Big congrats, well deserved!",
        ),
        answers=(
            "Thanks for the shout-out! [It was a team effort.|Couldn't have done it without {team}.]",
        ),
        weight=1.2,
    ),
}

_RANDOM: dict[str, Topic] = {
    "lunch": Topic(
        roots=(
            "Anyone up for lunch at [the ramen place|the new taco spot|the Thai place on "
            "{street}|the salad bar] [today|at {lunch}]?",
            "[Lunch crew|Lunch] leaving at {lunch} for {food}, [join us|all welcome].",
            "Best {food} near the office for lunch, go.",
            "Team lunch {weekday} at the {food} place on {street}, [who's in?|reply if you're "
            "coming]",
        ),
        replies=(
            "I'm in for lunch, [save me a seat|meet you in the lobby].",
            "The {food} place on {street} is [better|cheaper|faster] for lunch than the new spot.",
            "Is there a vegetarian option at the lunch place?",
            "Running late, order me the usual for lunch.",
            "Lunch {weekday} works, count me in.",
        ),
        answers=("Lunch table for [six|eight] booked, see you at {lunch}.",),
    ),
    "birthdays": Topic(
        roots=(
            "Someone brought [donuts|bagels|cake|cookies] for {colleague}'s birthday, kitchen, "
            "now.",
            "It's {colleague}'s birthday today, [cake in the {floor} floor kitchen at {time}|sign "
            "the card at reception].",
        ),
        replies=(
            "Happy birthday {colleague}! Thanks for the [cake|donuts].",
            "Is there any birthday cake left in the kitchen?",
        ),
    ),
    "leftovers": Topic(
        roots=(
            "Leftover [pizza|sandwiches|wraps] from the {team} event in the {floor} floor kitchen.",
        ),
        replies=(
            "Is there any [pizza|food] left in the {floor} floor kitchen?",
            "The {floor} floor kitchen is already out of [pizza|sandwiches], you snooze you lose.",
        ),
    ),
    "lostfound": Topic(
        roots=(
            "Who left a [blue|black|green|polka-dot|red] umbrella in the [kitchen|lobby|{floor} "
            "floor meeting room]?",
            "Found a [water bottle|set of keys|charger|jacket|scarf] on the {floor} floor, it's "
            "at reception.",
            "Lost my [badge|AirPods case|notebook|water bottle] somewhere between the kitchen and "
            "the {floor} floor, shout if you see it.",
        ),
        replies=(
            "That umbrella is mine, thanks! I'll grab it from the kitchen.",
            "Reception has a box of lost and found items, check there.",
            "Saw a [badge|bottle|notebook] on the {floor} floor this morning, left it at "
            "reception.",
            "Check the lost and found box at reception, it's overflowing.",
        ),
        answers=("Found it at reception, thanks all!",),
    ),
    "media": Topic(
        roots=(
            "Podcast recommendations for a long flight to {city}?",
            "Anyone watching [the new season of|the finale of] [that heist series|the cooking "
            "show|the space drama]? No spoilers.",
            "Weekend playlist thread: drop your [favourite|most played] album of the year.",
        ),
        replies=(
            "[Hard Fork|Acquired|99% Invisible] is a great podcast for a long flight.",
            "No spoilers please, I'm two episodes behind on the series!",
            "My album of the year is [anything by Phoebe Bridgers|the new Beyoncé record|an old "
            "jazz reissue], fight me.",
        ),
    ),
    "books": Topic(
        roots=(
            "Just finished {book}, [highly recommend|not sure about the ending]. Who's read it?",
            "Looking for a new book, [loved|just finished] {book}. What should I read next?",
        ),
        replies=(
            "Loved {book}, [the ending surprised me|the middle drags a bit].",
            "Adding {book} to my reading list.",
            "If you liked {book}, try {book2} next.",
        ),
    ),
    "coffee": Topic(
        roots=(
            "Coffee machine on the {floor} floor is [fixed|broken again] :coffee:",
            "New coffee beans in the {floor} floor kitchen, [a dark roast|from the place on "
            "{street}|single origin]. Reviews welcome.",
        ),
        replies=(
            "Is the coffee machine on the {floor} floor still broken?",
            "The new coffee is [great|too strong|much better than the old beans].",
            "Coffee run to the place on {street} at {time}, who wants one?",
        ),
    ),
    "weekend": Topic(
        roots=(
            "Happy Friday everyone! [Any weekend plans?|Who's doing something fun this weekend?]",
            "The sunset from the roof right now :sunrise: [Best part of the week.|Come up quick.]",
            "Dog photos please, [it's been a long week|I need a break before the weekend].",
        ),
        replies=(
            "Weekend plans: [a hike|the farmers market|sleeping in|a trip to {city}].",
            "Great sunset photo, the roof is the best spot in the building.",
            "Here's my dog [on the beach|refusing to walk|asleep on my keyboard].",
            "Happy Friday! [Concert on Saturday|Finally painting the kitchen this weekend].",
        ),
    ),
    "clubs": Topic(
        roots=(
            "Looking for a running buddy on [Tuesday|Thursday] mornings, [5k|10k] along the river.",
            "Trivia night team still needs [two|three] people, {weekday} at the pub on {street}.",
            "Board game night {weekday} after work, [bring snacks|I'll bring Catan].",
            "Book club is reading {book} this month, meeting {weekday} at {time}.",
        ),
        replies=(
            "I'm in for running on [Tuesdays|Thursdays], what pace?",
            "Count me in for trivia, [I know too much about 90s films|I'm useless at sport "
            "questions].",
            "I'll bring snacks to board game night.",
            "Halfway through {book} for book club, loving it.",
        ),
        answers=(
            "Great, the trivia team is full now!",
            "Board game night is on, see you {weekday}.",
        ),
    ),
}

CHATTER: dict[str, dict[str, Topic]] = {
    "general": _GENERAL,
    "random": _RANDOM,
    "sales": {
        "forecast": Topic(
            roots=(
                "Reminder: forecast calls are {weekday}, please have your close dates updated.",
                "{quarter} forecast is due {weekday} at {time}, commit and best case in the CRM "
                "please.",
            ),
            replies=(
                "Does the forecast call include renewals this time?",
                "Should pushed deals get a new close date before the forecast call?",
                "Is best case in the forecast the same as upside?",
            ),
            answers=(
                "Renewals are in the forecast call from this quarter.",
                "Yes, give pushed deals a real close date before the forecast.",
            ),
            things=("the forecast call", "the close dates in the forecast"),
        ),
        "pricing": Topic(
            roots=(
                "New pricing sheet is live, old discounts expire end of [month|quarter].",
                "Price increase on the [Team plan|Enterprise plan|Analytics add-on] from {month}: "
                "[{pct}%|a flat ${limit}] on new deals, renewals keep their price for a year.",
            ),
            replies=(
                "Where's the new pricing sheet? The old link still opens last year's prices.",
                "Do open proposals keep the old pricing?",
                "Can we still offer the old discount to deals in negotiation?",
            ),
            answers=(
                "New pricing sheet is pinned in the channel, the old one is archived.",
                "Proposals sent before {day} keep the old pricing.",
            ),
            things=("the pricing sheet", "the discount rules"),
        ),
        "pipeline": Topic(
            roots=(
                "Pipeline review moved to {time}.",
                "Pipeline coverage for {quarter} is [{cover}x|at {cover}x], we need more new "
                "business deals in the funnel.",
                "Please log your calls in the CRM, the activity report for the pipeline review is "
                "looking thin.",
            ),
            replies=(
                "Can we move the pipeline review again? It clashes with a customer call.",
                "Which segments are light on pipeline for {quarter}?",
                "Is there a shortcut to log calls from the CRM mobile app before the pipeline "
                "review?",
            ),
            answers=(
                "Mid-market is lightest on pipeline, enterprise is fine.",
                "The CRM app has a log call button on every contact, takes seconds.",
            ),
            things=("the pipeline review", "the pipeline coverage numbers", "the activity report"),
        ),
        "field": Topic(
            roots=(
                "Great discovery call today with {account}, the champion is super engaged.",
                "Who has a good case study for {industry} customers?",
                "Who has a good case study for [companies switching from spreadsheets|multi-region "
                "rollouts|a {industry} deal]?",
                "Lost a deal to [the usual competitor|a cheaper tool] on price again, anyone have "
                "a good battlecard?",
                "Trade show leads from last week are assigned, please follow up by {weekday}.",
            ),
            replies=(
                "We closed a similar {industry} deal last year, I'll send the case study.",
                "Marketing has a new case study, ask in #marketing.",
                "Nice, who is the champion at {account}?",
                "The competitor battlecard is in the sales drive, refreshed last month.",
                "Half of my trade show leads bounced, anyone else?",
            ),
            answers=("Thanks, the case study is exactly what I needed for the deal.",),
            things=("the case study", "the battlecard", "the trade show leads"),
        ),
    },
    "deals": {
        "deal_desk": Topic(
            roots=(
                "Deal desk is open for approvals until {time} today.",
                "Reminder: anything over {discount}% discount needs deal desk sign-off.",
                "End of quarter is close, let's get those order forms signed.",
                "[Non-standard terms|Multi-year deals|Ramped pricing] need legal review before "
                "the order form goes out, please plan for [two|three] days.",
                "We've signed {count} deals this month so far, {amount} in new ARR.",
            ),
            replies=(
                "Can deal desk look at a [15%|20%] discount for a three-year term today?",
                "Does the discount approval cover the renewal too?",
                "Legal is slammed, is two days for the order form review realistic?",
                "Great month! How many deals are still waiting on signature?",
            ),
            answers=(
                "Send the deal to the desk before {time}, we'll approve the discount today.",
                "Legal review for order forms is running at two days right now.",
            ),
            things=("the discount approval", "the order form review", "the deal desk queue"),
            owners=("Finance", "Sales", "Executive"),
        ),
    },
    "travel": {
        "booking_rules": Topic(
            roots=(
                "Reminder: book hotels at least a week ahead or you'll need approval.",
                "Preferred hotels are flagged in the booking tool, please use them when you can.",
                "If your trip is over the nightly cap, add a note for your manager before "
                "submitting.",
                "The nightly cap for {city} hotels is now ${cap}, [up from last year|to match "
                "hotel prices].",
            ),
            replies=(
                "Does the one-week rule apply to hotels for conferences too?",
                "The preferred hotel in {city} was full, is the approval automatic then?",
                "Is the nightly cap before or after taxes?",
            ),
            answers=(
                "Conference hotels still need the approval if booked late.",
                "The nightly cap is before taxes, the booking tool shows both.",
            ),
            things=("the hotel approval rule", "the nightly cap", "the preferred hotel list"),
            owners=("Business Operations", "Finance", "Operations"),
        ),
        "getting_there": Topic(
            roots=(
                "Anyone know if the airport train is running this weekend?",
                "Travel tip: the [early|late] train to {city} is [much faster|half the price] than "
                "flying.",
                "Per diem rates for travel were updated for {year}.",
            ),
            replies=(
                "Airport train runs [weekends|every 15 minutes] but is slow on Sundays.",
                "Where do I see the new per diem for {city} travel?",
                "Does the train to {city} count as business travel in the booking tool?",
            ),
            answers=("Per diems are in the travel policy page, by city.",),
            things=("the per diem table", "the travel policy page"),
        ),
    },
    "leadership": {
        "board": Topic(
            roots=(
                "Board deck draft is in the shared drive, comments by {weekday} please.",
                "{quarter} forecast call is at {time} tomorrow, board deck numbers come from it.",
                "Please send me your top three risks for the quarter.",
            ),
            replies=(
                "Added comments to the board deck, mostly on the [churn|pipeline|hiring] slides.",
                "My top risks: [renewal churn|hiring speed|the {service} migration].",
                "Do we want the forecast by segment or by region for the board deck?",
            ),
            answers=("Thanks, board deck comments are folded in.",),
            things=("the board deck", "the risk list"),
        ),
        "headcount": Topic(
            roots=(
                "Let's revisit hiring plans next week, some teams are ahead of budget.",
                "Headcount for {quarter}: [{count} approved roles|a freeze outside sales and "
                "engineering]. Details in the hiring plan.",
                "Performance review calibration starts {day}, managers please have ratings in by "
                "{weekday}.",
            ),
            replies=(
                "Can we move calibration a week? Half my managers are out.",
                "Is {team} headcount in the hiring plan yet?",
                "Are backfills counted against the headcount budget?",
            ),
            answers=(
                "Calibration stays on {day}, ratings can be drafts.",
                "Backfills don't count against the new headcount.",
            ),
            things=("the hiring plan", "the calibration timeline", "the headcount budget"),
        ),
    },
    "eng": {
        "deploys": Topic(
            roots=(
                "Deploying {service} {version} to production now.",
                "{service} {version} is out, rollback plan is in the runbook.",
                "Canary for {service} {version} looks [clean|good], promoting to all regions.",
                "Rolling back {service} {version}, [error rate went up|a migration failed|p95 "
                "latency doubled].",
            ),
            replies=(
                "Any schema migrations in {service} {version}?",
                "Seeing [a spike in 5xx|slower queries] on {service} since the deploy, related?",
                "Can you hold the {service} deploy until my PR merges?",
                "Is the {service} rollback automatic or manual?",
            ),
            answers=(
                "No migrations in this {service} release, just the API changes.",
                "Holding the {service} deploy, ping me when your PR is merged.",
            ),
            things=("the {service} release", "the deploy checklist", "the rollback runbook"),
        ),
        "platform": Topic(
            roots=(
                "Upgraded {service} to the new Postgres version in staging.",
                "Feature flag for the new search is at {rollout}% rollout.",
                "Reminder: code freeze starts {weekday} at noon.",
                "Dependency upgrade for {service}: [the web framework|the Postgres driver|the "
                "queue client] goes to staging {weekday}.",
            ),
            replies=(
                "Staging looks good for {service} after the Postgres upgrade.",
                "Is the search feature flag on for internal users already?",
                "Does the code freeze cover config changes too?",
                "Any breaking changes in the {service} dependency upgrade?",
            ),
            answers=(
                "Config changes need a second reviewer during code freeze.",
                "The search feature flag is on for all internal users.",
            ),
            things=("the feature flag", "the staging upgrade", "the code freeze list"),
        ),
        "quality": Topic(
            roots=(
                "Flaky test in {service} again, [looking into it|quarantining it for now].",
                "CI is [slow|red] on main, [a dependency upgrade broke the build|the runners are "
                "overloaded]. Working on it.",
                "Load test for {service} hit [{rps} rps|its limits at {rps} rps], results in the "
                "doc.",
            ),
            replies=(
                "Which test in {service} is flaky? I saw it fail on my PR too.",
                "CI is green again after the dependency pin.",
                "Do the load test numbers include the database or just the API?",
            ),
            answers=("Quarantined the flaky test in {service}, fix is in review.",),
            things=("the flaky test", "the CI build", "the load test results"),
        ),
        "reviews": Topic(
            roots=(
                "Can someone review the migration for {service}? It touches the billing tables.",
                "Postmortem for last week's {service} incident is up for review.",
                "On-call handoff: quiet week, [two|three] alerts on {service}, both resolved.",
                "Heads up: {service} latency is up since the last deploy, investigating.",
            ),
            replies=(
                "I'll review the {service} migration this morning.",
                "Added comments on the {service} postmortem, mostly about alerting.",
                "Latency looks like the new cache in {service}, checking the dashboard.",
                "Thanks for the on-call handoff, which {service} alerts fired?",
            ),
            answers=(
                "The migration runs in batches, no table locks.",
                "Latency is back to normal after the cache fix.",
            ),
            things=("the {service} migration", "the postmortem", "the latency dashboard"),
        ),
    },
    "incidents": {
        "incident": Topic(
            roots=(
                "SEV2: {service} error rate elevated, investigating.",
                "Mitigated: {service} is back to normal, root cause TBD.",
                "Status page updated for the {service} degradation.",
                "Resolved. Postmortem to follow for the {service} outage.",
                "SEV3: [slow exports|delayed notifications|login errors] for some customers, "
                "{service} on-call is on it.",
                "Incident review for the {service} outage is {weekday} at {time}.",
            ),
            replies=(
                "Customer support is seeing tickets about the {service} incident, any ETA?",
                "Is the status page current for the {service} incident?",
                "Root cause for {service} looks like the [config change|queue backlog|expired "
                "certificate].",
                "Paged the database on-call for the {service} incident.",
                "Error rate on {service} is dropping, mitigation worked.",
            ),
            answers=(
                "ETA for {service} is [30 minutes|an hour], status page is current.",
                "Root cause confirmed, postmortem draft by {weekday}.",
            ),
            things=("the incident timeline", "the status page", "the {service} root cause"),
            owners=("Engineering",),
        ),
    },
    "office": {
        "drill": Topic(
            roots=(
                "Fire drill on {weekday} at {time}, please join when the alarm goes.",
                "Fire drill {weekday}: [meet at the assembly point on {street}|take the stairs, "
                "not the elevator].",
            ),
            replies=(
                "Does the fire drill include the {floor} floor meeting rooms?",
                "Is the fire drill before or after the {time} all-hands?",
            ),
            answers=("The fire drill covers every floor, meeting rooms included.",),
            things=("the fire drill plan",),
            owners=("Business Operations", "Operations"),
        ),
        "access": Topic(
            roots=(
                "Visitors need to be registered at the front desk from {weekday}.",
                "Building access badges are being replaced {weekday}, pick yours up at reception.",
            ),
            replies=(
                "Do visitors need to register at the front desk if they have a badge?",
                "Will old badges stop working on {weekday}?",
            ),
            answers=(
                "Use the front desk app to register visitors, it's quick.",
                "Old badges work until the end of the week, pick up the new badge at reception.",
            ),
            things=("the visitor registration", "the badge swap"),
            owners=("Business Operations", "Operations"),
        ),
        "facilities": Topic(
            roots=(
                "Cleaning crew is in on {weekday} evening, please clear your desks.",
                "The parking garage gate is broken again, use the side entrance.",
                "Heating is being fixed on the {floor} floor today.",
                "The {floor} floor kitchen is closed {weekday} for [repairs|a deep clean].",
                "New [lockers|standing desks|phone booths] arrived on the {floor} floor, first come "
                "first served.",
            ),
            replies=(
                "Is the parking garage fixed yet? The side entrance is a long walk.",
                "Can we get the heating on the {floor} floor checked too?",
                "How do I reserve one of the new [lockers|desks|booths]?",
                "Does the desk cleaning include the {floor} floor?",
            ),
            answers=(
                "Parking garage gate is fixed as of this morning.",
                "Use the office app to reserve [lockers|desks|booths].",
            ),
            things=("the parking situation", "the kitchen schedule", "the desk booking"),
            owners=("Business Operations", "Operations"),
        ),
        "food": Topic(
            roots=(
                "Lunch is catered today, kitchen at {lunch}.",
                "We're out of oat milk, more coming tomorrow.",
                "Package for you at reception if your name starts with {letter}.",
            ),
            replies=(
                "Any vegetarian options in the catered lunch?",
                "Can we get more oat milk in the {floor} floor kitchen too?",
                "Is reception open late for packages?",
            ),
            answers=("Catered lunch has vegetarian and vegan trays.",),
            things=("the kitchen order", "the package pickup times"),
            owners=("Business Operations", "Operations"),
        ),
    },
    "team": {
        "rituals": Topic(
            roots=(
                "Standup notes for {weekday} are in the doc[|, {count} action items].",
                "Retro moved to {weekday} at {time}[| in the big room| on video].",
                "Please add your topics to the weekly agenda before {weekday}[| at {time}].",
                "Weekly team meeting is [cancelled|moved to {time}] on {weekday}, [post updates "
                "here instead|agenda stays the same].",
            ),
            replies=(
                "Added two topics to the agenda: [hiring|the roadmap|on-call|the {quarter} plan] "
                "and [the offsite|budget|tooling].",
                "Can we keep the retro to [30|45] minutes this time?",
                "I'll miss standup {weekday}, my notes are in the doc.",
                "Can we cover the {quarter} plan in the weekly meeting agenda?",
            ),
            answers=(
                "Retro is [30|45] minutes, promise.",
                "Added the {quarter} plan to the agenda for {weekday}.",
            ),
            things=("the agenda", "the standup notes", "the retro format"),
        ),
        "goals": Topic(
            roots=(
                "Quarterly goals draft is ready for comments.",
                "Draft {quarter} goals for {team}: [three|four] goals, [mostly carry-overs|one big "
                "bet]. Comments by {weekday}.",
                "Goals check-in: [two|three] of our {quarter} goals are on track, one is at risk.",
            ),
            replies=(
                "Comments on the goals doc: the second goal needs a metric.",
                "Which {quarter} goal is at risk, the hiring one?",
                "Can we add an on-call goal to the {quarter} list?",
            ),
            answers=("Thanks, added a metric to the second goal in the doc.",),
            things=("the goals doc", "the goal metrics"),
        ),
        "ooo": Topic(
            roots=(
                "I'm out {weekday}, ping {colleague} if anything urgent comes up.",
                "OOO {day} to {day_end}, {colleague} is covering for me.",
                "Who's covering support rotation next week?",
                "Heads down on the {quarter} plan today, slow to reply. {colleague} is covering "
                "urgent stuff.",
            ),
            replies=(
                "Enjoy the time off! I'll help {colleague} cover while you're out.",
                "I can take the support rotation next week.",
                "Is your OOO in the team calendar?",
            ),
            answers=("Thanks, OOO is in the team calendar now.",),
            things=("the rotation", "the team calendar", "the coverage plan"),
        ),
        "shipped": Topic(
            roots=(
                "Shipped [it|the release]! Thanks all.",
                "Shipped [the new onboarding flow|bulk export|dark mode|the audit log] to "
                "customers, thanks {colleague}!",
                "Demo on {weekday}: [the new dashboard|search filters|the billing page], [five|ten] "
                "minutes each.",
                "Milestone [one|two] is done, on to [the migration|beta feedback|docs].",
            ),
            replies=(
                "Congrats on shipping it! Any early customer feedback on the release?",
                "Can we demo the release to customer success on {weekday}?",
                "Nice milestone, is the migration plan written up?",
                "Where do I file bugs for the new release?",
            ),
            answers=(
                "Early feedback on the release is good, two bugs filed so far.",
                "Migration plan is in the milestone doc.",
            ),
            things=("the release notes", "the demo plan", "the milestone doc"),
        ),
    },
    "hiring": {
        "loops": Topic(
            roots=(
                "Two strong candidates for the {role} role, debrief at {time}.",
                "Please submit your interview feedback within 24 hours.",
                "We need one more interviewer for {weekday}'s loop.",
                "Pipeline for the {role} role: [{count} in screens, two onsite|{count} applicants "
                "this week], [strong|mixed] so far.",
                "[New|Updated] scorecards for {role} interviews are in the hiring guide.",
            ),
            replies=(
                "I can join {weekday}'s interview loop in the afternoon.",
                "Feedback for the {role} candidate is in, strong yes from me.",
                "Which scorecard should I use for the {role} interview?",
                "Can we get more {role} candidates from referrals?",
            ),
            answers=(
                "Thanks, added you to the interview loop.",
                "Use the new {role} scorecard in the hiring guide.",
            ),
            things=("the interview loop", "the scorecards", "the debrief"),
        ),
        "offers": Topic(
            roots=(
                "Offer accepted for the {team} opening!",
                "Offer out to the {role} candidate, [answer expected {weekday}|they're deciding "
                "between us and one other offer].",
            ),
            replies=(
                "Great news on the offer! When is the start date?",
                "Fingers crossed on the {role} offer.",
                "Did the candidate negotiate the offer much?",
            ),
            answers=(
                "Start date is in [three|four] weeks, the new hire's onboarding is being set up.",
            ),
            things=("the offer letter", "the start date"),
        ),
        "headcount": Topic(
            roots=(
                "Headcount for {team} was approved for next quarter.",
                "[Two|Three] new reqs opened for {team}: {role} and a backfill.",
            ),
            replies=(
                "Can we get a recruiter on the {team} headcount this week?",
                "Is the {team} backfill req posted on the careers page yet?",
            ),
            answers=("Recruiting will open the {team} reqs this week.",),
            things=("the headcount plan", "the {team} reqs"),
        ),
    },
    "support": {
        "queue": Topic(
            roots=(
                "Ticket backlog is down to {backlog}, nice work everyone.",
                "New macro for [password reset|SSO setup|invoice] questions is live.",
                "CSAT for last week: {csat}%.",
                "First response time is [up|down] to {response} minutes this week.",
            ),
            replies=(
                "Which tickets are still in the backlog? I can take a few.",
                "The new macro is great, saved me [ten|20] minutes of ticket replies today.",
                "CSAT dip was mostly the {service} incident tickets.",
                "Can we get first response time under an hour for the ticket queue?",
            ),
            answers=("Thanks, backlog tickets are tagged by product area.",),
            things=("the ticket backlog", "the macro", "the CSAT report"),
            owners=("Customer Success",),
        ),
        "escalations": Topic(
            roots=(
                "Escalation from {account} about [SSO|exports|billing], looping in engineering.",
                "{account} is asking for an SLA report, who has the numbers?",
                "{account} [escalated|reopened] a ticket about [the {service} API|missing data|"
                "slow exports], customer is [frustrated|patient but waiting].",
            ),
            replies=(
                "Engineering is on the {account} escalation, ETA tomorrow.",
                "I pulled the SLA numbers for {account}, sending now.",
                "Is the {account} escalation tied to the {service} incident?",
            ),
            answers=("The SLA report for {account} is in the support drive.",),
            things=("the {account} escalation", "the SLA report"),
            owners=("Customer Success",),
        ),
    },
    "it": {
        "helpdesk": Topic(
            roots=(
                "Laptop refresh sign-up is open for anyone on a {laptop_year} machine.",
                "VPN maintenance tonight {time} to {time_end}.",
                "Please enable MFA on your account by {weekday}.",
                "New monitors arrived, ping IT if you need one.",
            ),
            replies=(
                "Is the laptop refresh for {laptop_year} machines only?",
                "Same VPN problem here last time, restarting helped.",
                "Can I get two monitors or just one?",
                "My MFA app is on my old phone, who can reset it?",
            ),
            answers=(
                "One monitor per person, two for engineers on request.",
                "File an IT ticket and we'll reset your MFA.",
            ),
            things=("the laptop refresh list", "the monitor requests", "the MFA reset"),
            owners=("IT",),
        ),
        "requests": Topic(
            roots=(
                "My laptop won't connect to the [office wifi|VPN|printer] since the update, "
                "anyone else?",
                "How do I request access to [the data warehouse|the design tool|the CRM admin "
                "page]?",
                "The {floor} floor printer is [jammed|out of toner] again.",
            ),
            replies=(
                "File an IT ticket with your laptop serial and we'll swap it.",
                "Access requests go through the IT portal, your manager approves.",
                "Toner for the {floor} floor printer is on order.",
            ),
            answers=(
                "Fixed the wifi profile for your laptop, try again.",
                "Approved your access request.",
            ),
            things=("the IT ticket", "the access request", "the printer"),
        ),
    },
    "marketing": {
        "campaigns": Topic(
            roots=(
                "Webinar registrations are at {registrations}, up from last month.",
                "Campaign results for {month}: [{mqls} MQLs|{open_rate}% open rate], [best one "
                "this year|below target].",
                "Looking for a customer speaker for the {month} webinar, [anyone in {industry}?|"
                "ideally a {industry} customer.]",
            ),
            replies=(
                "How many webinar registrations usually turn into attendees?",
                "{account} might be a good webinar speaker, I'll ask.",
                "Which campaign channel drove most of the MQLs?",
            ),
            answers=("About [40%|a third] of webinar registrations show up live.",),
            things=("the webinar plan", "the campaign report"),
        ),
        "content": Topic(
            roots=(
                "New landing page is live, feedback welcome.",
                "Blog post on the release goes out {weekday}.",
                "Case study draft for {account} is ready for review.",
            ),
            replies=(
                "The landing page hero copy could be shorter, left comments.",
                "I can review the blog post draft before {weekday}.",
                "Did {account} approve their quotes for the case study?",
            ),
            answers=("Thanks, landing page copy is tightened.",),
            things=("the landing page copy", "the blog post draft", "the case study draft"),
        ),
        "events": Topic(
            roots=(
                "Booth for the trade show is confirmed.",
                "Swag order for {event} is in, [hoodies and stickers|tote bags] arriving "
                "{weekday}.",
                "Booth shifts for {event} are up, [two|three] slots still open.",
            ),
            replies=(
                "Who's staffing the booth at the trade show?",
                "Can sales get some of the swag for customer visits?",
                "I can take a booth shift on the second day of {event}.",
            ),
            answers=("Booth staffing sheet is in the marketing drive.",),
            things=("the booth schedule", "the swag order"),
        ),
    },
    "finance": {
        "close": Topic(
            roots=(
                "Month-end close starts {weekday}, please submit expenses by then.",
                "{quarter} spend is at {spend}% of budget, [on track|a bit ahead of plan].",
                "Budget reforecast templates are out.",
            ),
            replies=(
                "Does the reforecast template include headcount?",
                "My team's spend looks high because of the annual license renewal.",
                "Is the month-end close deadline for expenses or invoices too?",
            ),
            answers=("Headcount goes in the second tab of the reforecast template.",),
            things=("the reforecast template", "the month-end close checklist"),
            owners=("Finance", "Executive"),
        ),
        "payables": Topic(
            roots=(
                "Reminder: invoices over ${limit} need two approvals.",
                "Vendor payments run on {weekday}s.",
                "Audit prep: please send [contracts|purchase orders|receipts] for vendors over "
                "${limit} by {day}.",
            ),
            replies=(
                "Is the second approval for invoices your manager or finance?",
                "Which vendors are in scope for the audit?",
                "Can we pay a vendor off-cycle? They're threatening late fees.",
            ),
            answers=("Off-cycle vendor payments need CFO approval, send me the invoice.",),
            things=("the audit list", "the invoice approvals", "the vendor payment run"),
            owners=("Finance", "Executive"),
        ),
    },
    "dm": {
        "one_on_one": Topic(
            roots=(
                "Can we move our 1:1 to {weekday}[| at {time}]?[| Something came up with "
                "{subject}.]",
                "Running [5|10|15] minutes late to our 1:1, [stuck on a call about {subject}|the "
                "earlier meeting ran over].",
                "For our 1:1 {weekday}: [can we talk about|I'd like to cover] {subject}[| and my "
                "goals for {quarter}].",
            ),
            replies=(
                "{weekday} at {time} works for the 1:1.",
                "No problem, ping me when you're free, I'll keep the 1:1 slot.",
                "Sure, add {subject} to the 1:1 doc.",
            ),
            answers=("Thanks, moved the 1:1 in the calendar.",),
        ),
        "docs": Topic(
            roots=(
                "Sent you the doc on {subject}, let me know what you think[| before {weekday}].",
                "Got a minute? [Want to go over|Need your eyes on] {subject} before {weekday}.",
                "Did you see the email from legal about {subject}?",
            ),
            replies=(
                "Read the doc on {subject}, left [a few|some] comments[| on the second section].",
                "Sure, [call me|free now] to go over {subject}.",
                "Yes, legal wants changes on {subject}, I'll forward the email.",
            ),
            answers=("Thanks, I'll fold your comments on {subject} into the doc.",),
            things=("the comments on {subject}", "the doc on {subject}"),
        ),
        "vacation": Topic(
            roots=("Back from vacation, catching up on {subject} now.",),
            replies=(
                "Welcome back from vacation! Quick summary on {subject}: [nothing urgent|one "
                "decision needed].",
            ),
        ),
        "covering": Topic(
            roots=(
                "Thanks for covering the {subject_short} call earlier[!|, owe you one.]",
                "Nice job in the [meeting|demo|review] today, [the {subject_short} part landed "
                "well|the {subject_short} questions were spot on].",
            ),
            replies=(
                "Anytime! The {subject_short} call was [easy|short], notes are in the CRM.",
                "Thanks! The {subject_short} prep paid off.",
            ),
        ),
        "lunch": Topic(
            roots=(
                "Lunch {weekday}? [The {food} place?|I need to get out of the office.]",
                "Coffee [today|{weekday}] at {coffee}? [My treat.|Want to hear about your trip.]",
            ),
            replies=(
                "Yes to lunch! {food} works.",
                "Coffee at {coffee} works, meet downstairs.",
            ),
        ),
    },
    "project": {
        "project": Topic(
            roots=(
                "Kickoff notes are in the project doc.",
                "Milestone 1 is done, on to the migration.",
                "We're wrapping this project up, archiving the channel soon.",
                "Final project retro is scheduled for {weekday}.",
                "Launch checklist is complete.",
                "Project status: [green|amber], [two|three] tasks left before launch.",
            ),
            replies=(
                "Is the migration milestone in the project doc?",
                "Can we keep the channel until the project retro?",
                "Launch checklist looks good, one item on docs left.",
            ),
            things=("the launch checklist", "the project doc"),
        ),
    },
    "social": {
        "social": Topic(
            roots=(
                "This month's book club pick: {book}.",
                "Book club is meeting in the library corner at {time}.",
                "Who has the next book club pick?",
            ),
            replies=(
                "Halfway through {book}, loving it.",
                "I can pick the next book, something shorter this time.",
                "Library corner works for the book club.",
            ),
        ),
    },
}

# Engineering and product teams plan sprints and ship releases too.
CHATTER["team_eng"] = CHATTER["team"] | {
    "sprints": Topic(
        roots=(
            "Sprint planning {weekday} at {time}, [bring estimates|please groom your tickets "
            "first].",
            "Sprint {count} [wrapped|is done]: [{count} tickets closed|most of the scope landed|two "
            "carry-overs], demo {weekday}.",
        ),
        replies=(
            "Is sprint planning in person or on video?",
            "Can the {service} ticket move to the next sprint?",
            "I'll have estimates for the {service} tickets before sprint planning.",
        ),
        answers=("Sprint planning is hybrid, link in the invite.",),
        things=("the sprint board", "the sprint scope"),
    ),
}
del CHATTER["team"]["shipped"]

# Office channels also carry what people post for themselves, not only facilities notices.
CHATTER["office"] |= {"lunch": _RANDOM["lunch"], "lostfound": _RANDOM["lostfound"]}

# Misplaced questions: asked where they do not belong (chat.move_question moves them), by
# the chatter of the channel they are asked in.
_AIRPORT = Topic(
    roots=(
        "Anyone know if the airport train is running [this weekend|tomorrow morning|on {weekday}]?",
        "Anyone know if the airport train is running [this weekend|on {weekday}]? Flying to "
        "{city}.",
    ),
    replies=(
        "The airport train runs [every 20 minutes|all weekend] but there's track work, check the "
        "travel page.",
        "Ask in #travel, someone there took the airport train [last weekend|yesterday].",
        "I took the airport train [on Saturday|last week], it was fine.",
    ),
    things=("the airport train question", "the travel page"),
)
_ADAPTER = Topic(
    roots=(
        "Anybody have a spare HDMI adapter[| I can borrow][| for the {time} demo| for the {floor} "
        "floor room| before the {weekday} review]? [Mine died.|Mine went missing.|IT is out "
        "today.|]",
    ),
    replies=(
        "IT has spare HDMI adapters, ask in #it-helpdesk.",
        "I have a USB-C to HDMI adapter [at my desk|in my bag], come grab it.",
        "The adapter drawer on the {floor} floor is empty again.",
    ),
    things=("the adapter", "the adapter drawer"),
)
MISPLACED: dict[str, tuple[Topic, ...]] = {
    "general": (_AIRPORT, _ADAPTER),
    "random": (_AIRPORT,),
    "office": (_AIRPORT, _ADAPTER),
    "team": (_ADAPTER,),
    "team_eng": (_ADAPTER,),
}

SERVICES = ("search-api", "billing-service", "auth-gateway", "ingest-worker", "web-app",
            "notifications", "reporting-api", "sync-engine", "export-service", "mobile-api")  # fmt: skip
EMOJI = ("thumbsup", "tada", "eyes", "white_check_mark", "heart", "raised_hands", "rocket",
         "pray", "joy", "fire", "100", "clap")  # fmt: skip
PROJECTS = ("website-relaunch", "soc2-audit", "office-move", "billing-migration",
            "brand-refresh", "api-v1-sunset", "crm-cleanup", "holiday-party")  # fmt: skip
BOOKS = ("Project Hail Mary", "The Soul of a New Machine", "Klara and the Sun", "Educated",
         "The Ministry for the Future", "Tomorrow, and Tomorrow, and Tomorrow", "Piranesi",
         "Sapiens", "The Overstory", "Thinking, Fast and Slow", "Demon Copperhead",
         "The Three-Body Problem", "A Gentleman in Moscow", "Range", "The Midnight Library")  # fmt: skip
FOODS = ("ramen", "tacos", "pho", "pizza", "dumplings", "burritos", "sushi", "falafel",
         "banh mi", "curry", "bagels", "poke")  # fmt: skip
STREETS = ("Main Street", "Market Street", "2nd Avenue", "Elm Street", "Harbor Road",
           "Station Road", "King Street", "Park Avenue")  # fmt: skip
ROLES = ("Senior Software Engineer", "Account Executive", "Product Designer",
         "Customer Success Manager", "Data Engineer", "Solutions Engineer",
         "Product Marketing Manager", "Site Reliability Engineer", "Financial Analyst",
         "Recruiting Coordinator", "Support Engineer", "Engineering Manager")  # fmt: skip
EVENTS = ("SaaStr", "the regional sales summit", "Dreamforce", "the fintech expo",
          "the partner day", "the customer conference", "the healthcare IT expo")  # fmt: skip
NEW_CITIES = ("Lisbon", "Toronto", "Singapore", "Denver", "Dublin", "Sydney", "Austin")
PREVIOUS = ("a logistics startup", "a big four consultancy", "a fintech scale-up",
            "a healthcare software company", "a university research lab", "a retail chain",
            "a competitor", "a design agency", "a cloud provider")  # fmt: skip
DM_SUBJECTS = ("the QBR deck", "the hiring plan", "the roadmap draft", "the budget numbers",
               "the customer escalation", "the onboarding doc", "the pricing proposal",
               "the team offsite", "the on-call schedule", "the renewal forecast",
               "the launch checklist", "the interview feedback")  # fmt: skip


# The topics of structured posts, for their replies (their roots are chosen by `chat`).
DEAL = Topic((), DEAL_REPLIES, DEAL_ANSWERS, DEAL_THINGS)
DEAL_WON_TOPIC = Topic((), DEAL_WON_REPLIES, DEAL_WON_ANSWERS, ("the {account} onboarding plan",))
DEAL_LOST_TOPIC = Topic((), DEAL_LOST_REPLIES, DEAL_LOST_ANSWERS, ("the {account} loss notes",))
TRIP = Topic((), TRIP_REPLIES, TRIP_ANSWERS, TRIP_THINGS)
PENDING = Topic((), TRIP_REPLIES, PENDING_ANSWERS, TRIP_THINGS)
ROOM = Topic((), ROOM_REPLIES, ROOM_ANSWERS, ROOM_THINGS)
SHEET = Topic((), SHEET_REPLIES, SHEET_ANSWERS, SHEET_THINGS)
PHONE = Topic((), PHONE_REPLIES, PHONE_ANSWERS, PHONE_THINGS)
WELCOMES = Topic((), WELCOME_REPLIES, WELCOME_ANSWERS, WELCOME_THINGS)
PIPELINE = Topic((), PIPELINE_REPLIES, (), DEAL_THINGS)
ITINERARY = Topic((), ITINERARY_REPLIES, TRIP_ANSWERS, TRIP_THINGS)
