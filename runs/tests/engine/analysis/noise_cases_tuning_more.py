"""A third tuning set for the noise rule (issue 43): labelled text cases, weighted toward hard rewordings.

The format is ``noise_cases``'s: each family is nine *references* — the parent's value, then
eight samples' (independent draws of the same step at a temperature near 0.9, nothing changed)
— and a few *candidates*, each with its *truth*:

- ``beyond-noise``: the candidate is what a deliberate change to an input made — it claims
  something different (an antonym with no negation word, a replaced or dropped item, another
  number, unit, currency or scale, swapped roles, a code operator or literal, a JSON value,
  another conclusion);
- ``within-noise``: the candidate is one more draw of the same step — the same facts in other
  words: new vocabulary, abbreviations and acronyms or their spelled-out forms, number words,
  exactly equivalent units, numbered steps, questions and answers, headings, tables, emojis,
  reformatted or renamed code, mirrored comparisons, JSON with its keys reordered.

About three in five candidates are within-noise, most of them heavy rewordings, because a fresh
draw that says the same thing in new words is what a rule most easily mistakes for a change.
Every value is text (at least two words), and the topics are new — none of ``noise_cases``,
``noise_cases_tuning`` or ``noise_cases_unseen``.

The rule may be tuned on this set. It was written without reading the rule and without running
it: every case is labelled by meaning, as a careful human labeller would, and ambiguous cases
were left out.
"""

from __future__ import annotations

from runs.tests.engine.analysis.noise_cases import ABSENT, BEYOND, WITHIN, Case, families

__all__ = ["ABSENT", "CASES", "Case"]

CASES: list[Case] = []
family = families(CASES)


# ============================================================================ quotes and offers

family(
    "bike repair shop quote",
    [
        "Your bike needs a new rear derailleur and a new chain. Parts come to €55 and labour to €30, so €85 in total. It will be ready on Thursday after 4 pm.",
        "Quote: rear derailleur + chain replacement. Parts €55, labour €30, total €85. Pick-up Thursday from 4 p.m.",
        "- Replace rear derailleur\n- Replace chain\n- Parts: €55\n- Labour: €30\n- Total: €85\n- Ready: Thu after 16:00",
        "We'll swap the rear derailleur and fit a fresh chain. That's €55 in parts plus €30 labour — €85 altogether. You can collect it Thursday any time after 4pm.",
        "Hi! The mechanic recommends replacing both the chain and the rear derailleur. Total cost €85 (€55 parts, €30 work). Your bike should be ready Thursday afternoon, after 4 pm.",
        "The total is 85 euros: 55 for the new chain and rear derailleur, 30 for labour. Ready for collection on Thursday after 4 pm.",
        "A new rear derailleur and chain are needed. Estimated cost: EUR 85 (parts EUR 55, labour EUR 30). Ready Thursday, after 16:00.",
        "Thursday after 4 pm your bike will be ready. Work: new chain, new rear derailleur. Price: €85 including €30 labour.",
        "Good news, it's a straightforward fix — the rear derailleur and the chain are worn out and will be replaced. Parts €55 + labour €30 = €85. Come by on Thursday after four.",
    ],
    (
        "chatty, back mech (hard)",
        "Hey there! Verdict from the workshop: your chain and back mech are both worn out, so they're getting replaced. You're looking at eighty-five euros all in — fifty-five for the components, thirty for the mechanic's time. Collection from 16:00 on Thursday.",
        WITHIN,
    ),
    (
        "markdown table",
        "| Item | Cost |\n|---|---|\n| Parts (rear derailleur, chain) | €55 |\n| Labour | €30 |\n| **Total** | **€85** |\n\nReady: Thursday after 4 pm",
        WITHIN,
    ),
    (
        "questions and answers",
        "What needs doing? New rear derailleur and new chain.\nHow much? €85 — €55 parts, €30 labour.\nWhen? Thursday, from 4 pm.",
        WITHIN,
    ),
    (
        "front derailleur",
        "Your bike needs a new front derailleur and a new chain. Parts come to €55 and labour to €30, so €85 in total. It will be ready on Thursday after 4 pm.",
        BEYOND,
    ),
    (
        "ready Tuesday",
        "We'll swap the rear derailleur and fit a fresh chain. That's €55 in parts plus €30 labour — €85 altogether. You can collect it Tuesday any time after 4pm.",
        BEYOND,
    ),
)

family(
    "phone plan upgrade recommendation",
    [
        "You use about 18 GB a month, so your 10 GB plan ($30) is too small. I'd switch to the 25 GB plan at $40/month rather than Unlimited at $60 — it covers your usage and costs $20 less.",
        "Recommendation: 25 GB plan, $40/mo. Your usage (~18 GB) exceeds the current 10 GB ($30). Unlimited ($60) would be $20/month more than you need to spend.",
        "- Usage: ~18 GB/month\n- Current: 10 GB, $30 — too little\n- Best fit: 25 GB, $40\n- Unlimited: $60 — $20 more, not needed",
        "Since you're averaging around 18 GB per month, the 10 GB plan you have for $30 isn't enough. The 25 GB plan for $40 gives you headroom and is $20 cheaper than the $60 Unlimited plan, so that's the one I'd pick.",
        "Go for the 25 GB plan ($40 a month). At ~18 GB of monthly usage you've outgrown the 10 GB / $30 plan, and Unlimited at $60 would be overkill.",
        "Upgrade to 25 GB for $40/month. Current plan: 10 GB for $30, but you use roughly 18 GB. Unlimited costs $60, i.e. $20 more each month, with no benefit at your usage.",
        "Your data use (~18 GB/mo) is well above the 10 GB in your $30 plan. The 25 GB option at $40/mo fits comfortably; Unlimited ($60/mo) isn't worth the extra $20.",
        "Hi! You use roughly 18 GB monthly. The 25 GB plan ($40) is the sweet spot — more than enough, and $20/month cheaper than Unlimited ($60). Your current 10 GB plan ($30) is too small.",
        "Best option: 25 GB at $40 per month. Not the $60 Unlimited (you'd pay $20 extra for data you don't use), and not your current $30 10 GB plan (you use ~18 GB).",
    ],
    (
        "gigabytes spelled out, USD (hard)",
        "With monthly consumption hovering near eighteen gigabytes, the ten-gigabyte bundle (USD 30) falls short. I'd move you to the twenty-five-gigabyte bundle at USD 40 — it leaves room to spare and costs USD 20 a month less than the USD 60 unlimited option.",
        WITHIN,
    ),
    (
        "comparison table",
        "| Plan | Data | Price | Fit for ~18 GB |\n|---|---|---|---|\n| Current | 10 GB | $30 | too small |\n| **Recommended** | 25 GB | $40 | ✅ |\n| Unlimited | unlimited | $60 | overkill (+$20) |",
        WITHIN,
    ),
    (
        "mirrored comparisons",
        "$40 for 25 GB is the plan to take: 25 GB is more than the ~18 GB you use each month, while your current 10 GB ($30) is less. Unlimited ($60) costs $20 more per month for nothing you need.",
        WITHIN,
    ),
    (
        "recommends Unlimited",
        "You use about 18 GB a month, so your 10 GB plan ($30) is too small. I'd switch to Unlimited at $60/month rather than the 25 GB plan at $40 — it removes any risk of running out.",
        BEYOND,
    ),
    (
        "25 GB costs $45",
        "Recommendation: 25 GB plan, $45/mo. Your usage (~18 GB) exceeds the current 10 GB ($30). Unlimited ($60) would be $15/month more than you need to spend.",
        BEYOND,
    ),
)

family(
    "solar panel payback estimate",
    [
        "A 6 kW system costs about $15,000. After the 30% tax credit you'd pay $10,500. With roughly $1,400 a year in electricity savings, it pays for itself in about 7.5 years.",
        "Cost: $15,000 gross, $10,500 net (30% tax credit). Savings: ~$1,400/yr. Payback: ~7.5 years.",
        "- System: 6 kW\n- Price before credit: $15,000\n- 30% tax credit → net $10,500\n- Annual savings: about $1,400\n- Payback period: ~7.5 years",
        "You'd save around $1,400 per year on electricity. The 6 kW array is priced at $15,000, or $10,500 once the 30 percent tax credit is applied, so the payback period is about seven and a half years.",
        "Net of the 30% credit, the 6 kW installation comes to $10.5k (from $15k). At about $1.4k of savings annually, you break even in roughly 7.5 years.",
        "Payback ≈ 7.5 years: $10,500 net cost (a $15,000 6 kW system minus the 30% tax credit) ÷ ~$1,400 saved per year.",
        "Good news — the numbers work. The 6 kW system is $15,000 up front, but the 30% tax credit brings that down to $10,500. Since you'd save about $1,400 a year, you'd recoup the cost in around 7.5 years.",
        "After a 30% tax credit, the $15,000 price of a 6 kW system drops to $10,500; yearly savings of roughly $1,400 give a payback of about 7½ years.",
        "Estimated payback: 7.5 years. Net investment $10,500 (6 kW, $15,000 less 30% credit); energy savings around $1,400 per year.",
    ],
    (
        "thousands, years and months (hard)",
        "Once the credit knocks 30% off, the 6-kilowatt setup costs 10.5 thousand dollars instead of 15 thousand. Trimming your power bill by about 1,400 dollars every year, it earns its price back in roughly seven years and six months.",
        WITHIN,
    ),
    (
        "table with the credit amount",
        "| Item | Amount |\n|---|---|\n| 6 kW system | $15,000 |\n| 30% tax credit | −$4,500 |\n| Net cost | $10,500 |\n| Annual savings | ~$1,400 |\n| Payback | ~7.5 yrs |",
        WITHIN,
    ),
    (
        "USD, terse",
        "Net cost USD 10,500 (USD 15,000 for 6 kW minus a 30% tax credit); savings approx. USD 1,400/year; payback approx. 7.5 years.",
        WITHIN,
    ),
    (
        "savings per month",
        "A 6 kW system costs about $15,000. After the 30% tax credit you'd pay $10,500. With roughly $1,400 a month in electricity savings, it pays for itself in about 7.5 months.",
        BEYOND,
    ),
    (
        "a 20% credit",
        "Good news — the numbers work. The 6 kW system is $15,000 up front, but the 20% tax credit brings that down to $12,000. Since you'd save about $1,400 a year, you'd recoup the cost in around 8.6 years.",
        BEYOND,
    ),
)

family(
    "wedding venue comparison",
    [
        "For 110 guests, Oak Barn is the better deal: $9,000 with catering included (capacity 120). Lakeview Hall is $7,500 for up to 150 guests, but catering costs about $4,000 extra, so roughly $11,500 in total. I recommend Oak Barn.",
        "Recommendation: Oak Barn. It costs $9,000 all-in, including catering, and holds 120 — enough for your 110 guests. Lakeview Hall looks cheaper at $7,500 (up to 150 guests), yet with ~$4,000 of catering it totals around $11,500.",
        "| Venue | Price | Capacity | Catering |\n|---|---|---|---|\n| Oak Barn | $9,000 | 120 | included |\n| Lakeview Hall | $7,500 | 150 | +~$4,000 |\n\nWith 110 guests, Oak Barn is cheaper overall ($9,000 vs ~$11,500). Go with Oak Barn.",
        "- Oak Barn: $9,000, fits 120, catering included\n- Lakeview Hall: $7,500, fits 150, catering extra (~$4,000) → ~$11,500\n- Verdict: Oak Barn wins for 110 guests",
        "Lakeview Hall has the lower headline price ($7,500) and more room (150 guests), but once you add roughly $4,000 for catering it comes to about $11,500. Oak Barn's $9,000 includes catering and seats 120, which covers your 110 guests. Oak Barn is my pick.",
        "Both venues fit 110 guests (Oak Barn up to 120, Lakeview Hall up to 150). Oak Barn: $9,000 including catering. Lakeview: $7,500 plus catering of around $4,000. Total cost favours Oak Barn, so book Oak Barn.",
        "Oak Barn comes out ahead. Its $9,000 price covers catering, and the 120-guest limit is fine for 110 people. Lakeview Hall's $7,500 excludes catering (about $4,000 more) — about $11.5k in total — though it can host 150.",
        "Go with Oak Barn! 🌾 $9k with food included, room for 120. Lakeview Hall: $7.5k, room for 150, but catering adds ~$4k, making it ~$11.5k. For your 110 guests, Oak Barn saves you roughly $2,500.",
        "Comparing total cost for 110 guests: Oak Barn $9,000 (catering included, max 120) vs Lakeview Hall ≈ $11,500 ($7,500 venue, max 150, plus ≈ $4,000 catering). Recommended: Oak Barn.",
    ],
    (
        "the barn is cheaper by 2.5k (hard)",
        "My vote goes to the barn: Oak Barn charges nine thousand dollars and that includes the food, and its 120-person limit comfortably covers 110 guests. Lakeview Hall quotes $7,500 and could seat 150, but you'd still need to hire a caterer for around $4,000, so it ends up about $2,500 dearer.",
        WITHIN,
    ),
    (
        "questions and answers",
        "Which venue? Oak Barn.\nWhy? $9,000 total with catering vs about $11,500 for Lakeview Hall ($7,500 + ~$4,000 catering).\nWill 110 guests fit? Yes — Oak Barn takes 120 (Lakeview 150).",
        WITHIN,
    ),
    (
        "numbered options",
        "1. Oak Barn — $9,000, catering included, capacity 120.\n2. Lakeview Hall — $7,500 + approx. $4,000 catering ≈ $11,500, capacity 150.\nFor 110 guests, option 1 is cheaper: choose Oak Barn.",
        WITHIN,
    ),
    (
        "recommends Lakeview Hall",
        "Lakeview Hall is the better choice: $7,500 for up to 150 guests, and even with about $4,000 of catering it gives you more space. Oak Barn is $9,000 with catering included but only holds 120. I recommend Lakeview Hall.",
        BEYOND,
    ),
    (
        "capacities swapped",
        "For 110 guests, Oak Barn is the better deal: $9,000 with catering included (capacity 150). Lakeview Hall is $7,500 for up to 120 guests, but catering costs about $4,000 extra, so roughly $11,500 in total. I recommend Oak Barn.",
        BEYOND,
    ),
)

family(
    "job offer letter summary",
    [
        "You're offered the Senior Data Analyst role starting 1 September at £58,000 a year. You get 25 days' holiday plus bank holidays, work hybrid with 2 office days a week, and have a 6-month probation. Please accept by 15 July.",
        "- Role: Senior Data Analyst\n- Start: 1 Sept\n- Salary: £58,000/year\n- Holiday: 25 days + bank holidays\n- Hybrid: 2 days/week in the office\n- Probation: 6 months\n- Reply by: 15 July",
        "The offer is for Senior Data Analyst at £58k per annum, starting on 1 September. It's hybrid (two days a week in the office), with 25 days of annual leave on top of bank holidays and a six-month probation period. The deadline to accept is 15 July.",
        "Key terms: £58,000 salary; start date 1 September; 25 days' annual leave plus bank holidays; two office days per week; 6-month probation. Position: Senior Data Analyst. Accept by 15 July.",
        "Congratulations! They want you as Senior Data Analyst from 1 September, paying £58,000 annually. Holiday is 25 days plus bank holidays, you'd be in the office 2 days a week, and probation lasts 6 months. You have until 15 July to accept.",
        "Senior Data Analyst offer: £58,000 p.a., starting 01/09. 25 days' holiday + bank holidays. Hybrid, 2 days in office weekly. Probation 6 months. Acceptance deadline 15/07.",
        "Accept by 15 July. The role is Senior Data Analyst, beginning 1 September, salary £58,000 a year, with 25 holiday days plus bank holidays, a hybrid pattern of two days a week on site, and six months' probation.",
        "Summary of your offer letter: position Senior Data Analyst; annual salary £58,000; start 1 September; holiday 25 days (bank holidays extra); hybrid working, 2 days per week in the office; probation 6 months; respond by 15 July.",
        "The letter offers you the Senior Data Analyst job at £58,000 per year from 1 September. Expect 2 days a week in the office (hybrid), 25 days' holiday plus bank holidays, and a 6-month probation. They need your acceptance by 15 July.",
    ],
    (
        "number words, half a year (hard)",
        "You'd join as Senior Data Analyst on the first of September on fifty-eight thousand pounds a year. Probation runs for half a year; leave is twenty-five days with bank holidays on top; and the hybrid arrangement means two days per week at the office. They'd like your yes by the 15th of July.",
        WITHIN,
    ),
    (
        "questions and answers",
        "What role? Senior Data Analyst. Pay? £58,000/yr. Start? 1 Sept. Leave? 25 days + bank holidays. Office? 2 days/wk (hybrid). Probation? 6 months. Deadline? 15 July.",
        WITHIN,
    ),
    (
        "GBP, abbreviations",
        "Offer — Senior Data Analyst, GBP 58,000 p.a., start 1 Sep; annual leave 25 days plus bank hols; hybrid, 2 days/wk on-site; probation 6 mo.; accept by 15 Jul.",
        WITHIN,
    ),
    (
        "three office days",
        "The offer is for Senior Data Analyst at £58k per annum, starting on 1 September. It's hybrid (three days a week in the office), with 25 days of annual leave on top of bank holidays and a six-month probation period. The deadline to accept is 15 July.",
        BEYOND,
    ),
    (
        "3-month probation",
        "- Role: Senior Data Analyst\n- Start: 1 Sept\n- Salary: £58,000/year\n- Holiday: 25 days + bank holidays\n- Hybrid: 2 days/week in the office\n- Probation: 3 months\n- Reply by: 15 July",
        BEYOND,
    ),
)

# ============================================================================ travel, tax, HR

family(
    "car rental pickup confirmation",
    [
        "Your compact car (VW Polo or similar) is booked for pick-up on Friday 14 June at 10:00 from the Lisbon Airport desk. Return it there by 10:00 on Monday 17 June. Fuel policy is full-to-full. Total €180, already paid. Bring your driving licence and a credit card in the driver's name.",
        "- Car: compact, VW Polo or similar\n- Pick-up: Fri 14 Jun, 10:00, Lisbon Airport\n- Return: Mon 17 Jun by 10:00, same desk\n- Fuel: full to full\n- Price: €180 (paid)\n- Bring: driving licence + credit card in driver's name",
        "Booking confirmed! Collect a VW Polo or similar compact at the Lisbon Airport counter on Friday, 14 June at 10 am, and drop it back by 10 am on Monday, 17 June. You'll get it with a full tank and should return it full. The €180 total has been paid. Please have your driving licence and a credit card in the driver's name with you.",
        "Pick-up Friday 14 June 10:00 at Lisbon Airport (LIS); return Monday 17 June by 10:00. Compact class — VW Polo or similar. Full-to-full fuel. Paid: €180. Required at the desk: driver's licence and credit card in the driver's name.",
        "The total of €180 is paid. You're collecting a compact (VW Polo or similar) on Fri 14 June at 10:00 from the Lisbon Airport rental desk and returning it to the same desk by Mon 17 June, 10:00. The car comes full and must go back full. Don't forget your licence and a credit card in the driver's own name.",
        "Summary: compact car, 14–17 June, Lisbon Airport. Out: Friday 10:00. Back: Monday by 10:00. Full-to-full. €180 prepaid. Documents: driving licence, credit card (driver's name).",
        "Hi! Everything is set for your trip. Your VW Polo (or a similar compact) will be ready at the Lisbon Airport desk at 10:00 on Friday 14 June. Please bring it back to the same place by 10:00 on Monday 17 June with a full tank, as you'll receive it full. You've already paid the €180 total. At pick-up, show your driving licence and a credit card in the driver's name.",
        "Rental confirmation — Lisbon Airport\nPick-up: 14/06 (Fri) 10:00\nReturn: 17/06 (Mon) by 10:00\nVehicle: compact, VW Polo or similar\nFuel: full/full\nAmount paid: €180\nBring: licence and credit card in driver's name",
        "Please bring your driving licence and a credit card in the driver's name when you collect your compact car (VW Polo or similar) at the Lisbon Airport desk on Friday 14 June at 10:00. It's due back by 10:00 on Monday 17 June, full-to-full fuel. €180 paid in full.",
    ],
    (
        "airport code, 10h00 (hard)",
        "All set ✅ LIS airport desk, Fri 14/6 at 10h00: grab your compact (VW Polo or equivalent). Drop-off at the same desk Mon 17/6 no later than 10h00, tank full on return just as you got it. Paid in full: EUR 180. At the counter you'll need your licence and a credit card under the driver's name.",
        WITHIN,
    ),
    (
        "documents first, bullets",
        "Bring: driving licence + credit card in the driver's name.\n- €180 — paid\n- Full-to-full fuel\n- Compact: VW Polo or similar\n- Out: Lisbon Airport, Friday 14 June, 10:00\n- Back: same desk, Monday 17 June, by 10:00",
        WITHIN,
    ),
    (
        "three-day rental",
        "Three-day compact rental (VW Polo or similar) at Lisbon Airport: pick up Friday 14 June at 10:00, return Monday 17 June by 10:00. Full-to-full fuel, €180 paid. Bring your driving licence and a credit card in the driver's name.",
        WITHIN,
    ),
    (
        "debit card",
        "Your compact car (VW Polo or similar) is booked for pick-up on Friday 14 June at 10:00 from the Lisbon Airport desk. Return it there by 10:00 on Monday 17 June. Fuel policy is full-to-full. Total €180, already paid. Bring your driving licence and a debit card in the driver's name.",
        BEYOND,
    ),
    (
        "return on Sunday",
        "Pick-up Friday 14 June 10:00 at Lisbon Airport (LIS); return Sunday 16 June by 10:00. Compact class — VW Polo or similar. Full-to-full fuel. Paid: €180. Required at the desk: driver's licence and credit card in the driver's name.",
        BEYOND,
    ),
)

family(
    "tax filing deadline answer",
    [
        "Your 2024 return is due by 31 July 2025. If a registered tax adviser prepares it, you have until 30 April 2026. Filing late costs €25 for each month or part of a month.",
        "Deadline for the 2024 tax return: 31 July 2025 (30 April 2026 if you use a tax adviser). Late penalty: €25 per started month.",
        "- 2024 return, self-filed: 31 July 2025\n- With a registered tax adviser: 30 April 2026\n- Late filing fee: €25 per month (or part month)",
        "You need to submit the 2024 tax return by July 31, 2025. Working with a registered tax adviser pushes that to April 30, 2026. After the deadline a late fee of 25 euros is charged for every started month.",
        "If you file yourself, the 2024 return must be in by 31/07/2025; through a tax adviser, by 30/04/2026. Each month (or part of one) you're late costs €25.",
        "Short version: 31 July 2025. That's for filing on your own — a registered tax adviser gets you until 30 April 2026. Miss it and you pay a €25 late fee per started month.",
        "The filing deadline for tax year 2024 is 31 July 2025, extended to 30 April 2026 when a registered tax adviser handles the return. Late returns incur €25 for each month or part thereof.",
        "File the 2024 return by 31 Jul 2025, or by 30 Apr 2026 if a registered adviser files it for you. Late: €25/month, part months count as full.",
        "Hi! For 2024 income the return is due on 31 July 2025. Using a registered tax adviser extends this to 30 April 2026. Be aware there's a late filing surcharge of €25 per month, and any part of a month counts.",
    ],
    (
        "end of July, nine more months (hard)",
        "Filing on your own? Then the end of July 2025 is your cut-off for the 2024 return. Hand it to a registered tax adviser and you gain another nine months, until 30 April 2026. Lateness is billed at €25 for each month, even partial ones.",
        WITHIN,
    ),
    (
        "ISO dates",
        "2024 return deadlines: 2025-07-31 (filing yourself), 2026-04-30 (via a registered tax adviser). Late fee: EUR 25 for every started month.",
        WITHIN,
    ),
    (
        "questions and answers",
        "When is my 2024 return due? 31 July 2025.\nAnd with a tax adviser? 30 April 2026.\nWhat if I'm late? €25 per month or part of a month.",
        WITHIN,
    ),
    (
        "due 30 June",
        "Your 2024 return is due by 30 June 2025. If a registered tax adviser prepares it, you have until 30 April 2026. Filing late costs €25 for each month or part of a month.",
        BEYOND,
    ),
    (
        "fee per week",
        "Deadline for the 2024 tax return: 31 July 2025 (30 April 2026 if you use a tax adviser). Late penalty: €25 per started week.",
        BEYOND,
    ),
)

family(
    "expense reimbursement policy answer",
    [
        "Submit expenses through the expenses portal within 30 days, with itemised receipts. Meals are covered up to €40 per day, taxis only after 10 pm, and reimbursements are paid with the next monthly payroll.",
        "- Deadline: 30 days after the expense\n- How: expenses portal, itemised receipts attached\n- Meals: max €40/day\n- Taxis: only after 10 pm\n- Paid: next payroll",
        "You can claim meals up to €40 a day. Taxis are reimbursed only for rides after 10 p.m. Claims go in the expenses portal with itemised receipts, no later than 30 days after you spend the money, and the money arrives with your next salary.",
        "Reimbursement rules: file within thirty days via the portal; itemised receipts required; daily meal cap €40; taxis after 22:00 only; paid out in the next payroll run.",
        "Hi! Our policy: log the expense in the portal within 30 days and attach an itemised receipt. We cover up to €40 per day for meals. Taxis are only covered after 10pm. You'll see the refund on your next payslip.",
        "Expenses are reimbursed with the following payroll if they're submitted in the portal within 30 days with itemised receipts. Limits: meals €40 per day; taxi rides only after 10 pm.",
        "Meals: €40/day cap. Taxi: after 10 pm only. Submit: within 30 days, itemised receipts, expenses portal. Payment: with next month's payroll.",
        "Please use the expenses portal and upload itemised receipts within 30 days. Meal costs are refunded up to a maximum of €40 daily, and taxi fares only when the trip is after 10 pm. Amounts are added to your next payroll.",
        "To get reimbursed: (1) open the expenses portal, (2) add the itemised receipts, (3) submit within 30 days. Meals up to EUR 40 per day; taxis only after 10 pm. Payment comes with the next payroll.",
    ],
    (
        "late-night cabs, 22:00 (hard)",
        "Cab fares are refunded only for late-night trips after 22:00, and food up to forty euros a day. Everything goes through the expense portal — itemised receipts, submitted within thirty days — and lands in your next pay cheque.",
        WITHIN,
    ),
    (
        "numbered",
        "1. Keep itemised receipts.\n2. Enter them in the expenses portal within 30 days.\n3. Meals: up to €40 per day.\n4. Taxis: only after 10 pm.\n5. Refund arrives with the next payroll.",
        WITHIN,
    ),
    (
        "FAQ with a heading",
        "## Expenses FAQ\n**Deadline?** 30 days.\n**Receipts?** Itemised, uploaded to the portal.\n**Meal limit?** €40/day.\n**Taxis?** Only after 10 pm.\n**When paid?** Next payroll.",
        WITHIN,
    ),
    (
        "€40 per meal",
        "Submit expenses through the expenses portal within 30 days, with itemised receipts. Meals are covered up to €40 per meal, taxis only after 10 pm, and reimbursements are paid with the next monthly payroll.",
        BEYOND,
    ),
    (
        "taxis before 10 pm",
        "You can claim meals up to €40 a day. Taxis are reimbursed only for rides before 10 p.m. Claims go in the expenses portal with itemised receipts, no later than 30 days after you spend the money, and the money arrives with your next salary.",
        BEYOND,
    ),
)

family(
    "performance review feedback summary",
    [
        "Priya's documentation is clear and she mentors junior engineers well. Her growth area is estimation: she tends to underestimate tasks. Overall rating: exceeds expectations. Goal for next half: lead the billing migration.",
        "- Strengths: clear docs, mentoring juniors\n- Growth area: estimates (tends to underestimate)\n- Rating: exceeds expectations\n- Next half: lead the billing migration",
        "Rating: Exceeds Expectations. Priya writes clear documentation and is a strong mentor to junior engineers. She should work on estimating tasks, which she often underestimates. Next half, she'll lead the billing migration.",
        "Priya exceeded expectations this cycle. Colleagues value her clear documentation and her mentoring of junior engineers. To grow, she needs to get better at estimating — her estimates usually come in too low. Next half she takes the lead on the billing migration.",
        "Strong half for Priya: exceeds expectations. Highlights — documentation that's easy to follow, and generous mentoring of juniors. Development point — task estimates tend to be too optimistic (underestimated). Goal — lead the billing migration next half.",
        "Next half, Priya will lead the billing migration. Her review: exceeds expectations, with clear documentation and mentoring of junior engineers as strengths, and task estimation (she tends to underestimate effort) as the area to improve.",
        "Summary for Priya — what went well: clear docs; mentoring junior engineers. Even better if: more accurate estimates (currently too low). Rating: exceeds expectations. Objective: own the billing migration next half.",
        "Overall Priya exceeds expectations. Her written docs are clear and junior engineers benefit from her mentoring. She tends to underestimate how long tasks will take, so estimation is her focus area. She will lead the billing migration in the next half.",
        "Priya — Exceeds expectations. ✅ Clear documentation ✅ Mentors junior engineers ⚠️ Underestimates tasks 🎯 Next half: lead billing migration",
    ],
    (
        "optimistic forecasts (hard)",
        "Priya's write-ups are lucid and the newer engineers on the team learn a lot from her coaching. Where she can improve: her effort forecasts are consistently too optimistic — work takes longer than she predicts. Verdict: exceeds expectations. In the coming half she'll head up the billing migration.",
        WITHIN,
    ),
    (
        "headings",
        "### Strengths\nClear documentation; mentoring junior engineers\n### Growth area\nEstimation — tends to underestimate\n### Rating\nExceeds expectations\n### Goal (next half)\nLead the billing migration",
        WITHIN,
    ),
    (
        "terse shorthand",
        "Priya: exceeds exp. + docs, + mentoring juniors; − underestimates tasks. Next half: lead billing migration.",
        WITHIN,
    ),
    (
        "overestimates",
        "Priya's documentation is clear and she mentors junior engineers well. Her growth area is estimation: she tends to overestimate tasks. Overall rating: exceeds expectations. Goal for next half: lead the billing migration.",
        BEYOND,
    ),
    (
        "meets expectations",
        "Rating: Meets Expectations. Priya writes clear documentation and is a strong mentor to junior engineers. She should work on estimating tasks, which she often underestimates. Next half, she'll lead the billing migration.",
        BEYOND,
    ),
)

# ============================================================================ product and ops

family(
    "customer NPS survey summary",
    [
        "Q2 NPS is 42, up from 35 in Q1, based on 1,200 responses. Promoters praise fast delivery; detractors mostly complain about the Android app crashing.",
        "NPS rose 7 points to 42 this quarter (Q1: 35). n = 1,200. Top praise: delivery speed. Top complaint: crashes in the Android app.",
        "- NPS: 42 (Q1: 35, +7)\n- Responses: 1,200\n- Promoters: love the fast delivery\n- Detractors: Android app crashes",
        "Based on 1,200 survey responses, our Net Promoter Score reached 42 in Q2, compared with 35 in Q1. Fast delivery is what promoters mention most, while detractors point to the Android app crashing.",
        "Good quarter: NPS up from 35 to 42 across 1,200 responses. What people love — quick delivery. What hurts us — the Android app keeps crashing.",
        "The Android app's crashes are the main complaint among detractors, whereas promoters highlight fast delivery. Overall NPS climbed to 42 in Q2 from 35 in Q1 (1,200 responses).",
        "Net Promoter Score, Q2: 42 (+7 vs. Q1's 35). Sample: 1,200. Drivers: fast delivery (promoters); Android app crashes (detractors).",
        "NPS improved from 35 last quarter to 42 in Q2, from 1.2k responses. Promoters: 'delivery was super fast'. Detractors: 'the Android app crashes'.",
        "We collected 1,200 responses in Q2. NPS now stands at 42, a 7-point improvement on Q1 (35). Promoters cite speedy delivery; detractors cite frequent Android app crashes.",
    ],
    (
        "twelve hundred, passive (hard)",
        "Twelve hundred customers answered the Q2 survey, and the Net Promoter Score was lifted by seven points, from 35 to 42. Quick shipping is what our fans single out; an Android app that keeps crashing is what our critics single out.",
        WITHIN,
    ),
    (
        "headings and emojis",
        "## Q2 NPS\n**42** (Q1: 35)\n\n## Responses\n1,200\n\n## Themes\n- 👍 fast delivery\n- 👎 Android app crashes",
        WITHIN,
    ),
    (
        "terse arrows",
        "NPS 35 → 42 (Q1 → Q2), 1.2k responses. +: fast delivery. −: Android app crashes.",
        WITHIN,
    ),
    (
        "iOS app",
        "Q2 NPS is 42, up from 35 in Q1, based on 1,200 responses. Promoters praise fast delivery; detractors mostly complain about the iOS app crashing.",
        BEYOND,
    ),
    (
        "down from 49",
        "NPS fell 7 points to 42 this quarter (Q1: 49). n = 1,200. Top praise: delivery speed. Top complaint: crashes in the Android app.",
        BEYOND,
    ),
)

family(
    "maintenance window notice for a database migration",
    [
        "On Saturday 8 June from 22:00 to 02:00 UTC we'll migrate to new database servers. The customer portal will be unavailable during this window; the public API will keep running. No action is needed on your side.",
        "Scheduled maintenance: Sat 8 June, 22:00–02:00 UTC (4 hours). Portal: down. API: unaffected. Reason: database server migration. No action required.",
        "- When: Saturday 8 June, 22:00–02:00 UTC\n- What: database migration to new servers\n- Impact: customer portal offline; API unaffected\n- Your action: none",
        "Heads-up: we're moving our databases to new servers on Saturday, June 8, between 10 pm and 2 am UTC. You won't be able to use the customer portal during those four hours, but the API stays available. You don't need to do anything.",
        "The customer portal will be offline for about four hours on Saturday 8 June (22:00–02:00 UTC) while we migrate our database servers. API traffic is not affected and no customer action is required.",
        "Maintenance window 🛠️ Sat 8 Jun 22:00 → Sun 9 Jun 02:00 UTC. We're migrating to new DB servers. Portal unavailable, API up as normal. Nothing for you to do.",
        "We will perform a database server migration during a 4-hour maintenance window on Saturday 8 June, 22:00 to 02:00 UTC. During this time the customer portal cannot be accessed. The public API remains fully operational. No action is required from customers.",
        "No action needed: the API will stay up throughout. Only the customer portal goes offline, from 22:00 UTC on Saturday 8 June until 02:00 UTC, while we switch to new database servers.",
        "Dear customer, please note planned maintenance this Saturday (8 June) from 22:00 until 02:00 UTC for our move to new database servers. The customer portal will be unavailable; the API is unaffected. You do not need to take any action.",
    ],
    (
        "240 minutes, new hardware (hard)",
        "Planned downtime of 240 minutes for the customer portal: Saturday 8 June, 22:00–02:00 UTC, while our databases move onto new servers. The public API won't be touched, and you needn't do a thing.",
        WITHIN,
    ),
    (
        "passive, overnight into Sunday",
        "The migration of our database servers is scheduled overnight from Saturday 8 June 22:00 UTC to Sunday 9 June 02:00 UTC. Access to the customer portal will be interrupted for those four hours; API availability is not impacted. No steps need to be taken by you.",
        WITHIN,
    ),
    (
        "questions and answers",
        "When? Sat 8 June, 22:00–02:00 UTC. Why? Database server migration. What's down? The customer portal only — the API stays up. Do I need to do anything? No.",
        WITHIN,
    ),
    (
        "API down too",
        "Both the customer portal and the public API will be offline for about four hours on Saturday 8 June (22:00–02:00 UTC) while we migrate our database servers. No customer action is required.",
        BEYOND,
    ),
    (
        "CET instead of UTC",
        "Scheduled maintenance: Sat 8 June, 22:00–02:00 CET (4 hours). Portal: down. API: unaffected. Reason: database server migration. No action required.",
        BEYOND,
    ),
)

family(
    "feature flag rollout plan",
    [
        "We'll enable the new_checkout flag for 5% of users on Monday, raise it to 25% on Wednesday and to 100% the following Monday, as long as the error rate stays below 0.5%. To roll back, we simply switch the flag off.",
        "- Mon: 5% of users\n- Wed: 25%\n- Next Mon: 100%\n- Gate: error rate < 0.5%\n- Rollback: turn new_checkout off",
        "Rollout plan for new_checkout: 5% Monday → 25% Wednesday → 100% next Monday. We only advance while errors stay under 0.5%; rollback is just disabling the flag.",
        "Starting Monday, 5 percent of users get the new checkout (flag new_checkout). On Wednesday we go to 25 percent, and the Monday after that to everyone. Each step requires the error rate to remain below 0.5 percent. If something breaks, we turn the flag off.",
        "Phase 1 (Mon): 5%. Phase 2 (Wed): 25%. Phase 3 (following Mon): 100%. Guardrail: error rate under 0.5%. Rollback: disable new_checkout.",
        "Turning the flag off is our rollback. The plan: new_checkout at 5% of users on Monday, 25% on Wednesday, and full rollout the next Monday — provided the error rate stays below 0.5%.",
        "| Day | Exposure |\n|---|---|\n| Monday | 5% |\n| Wednesday | 25% |\n| Next Monday | 100% |\n\nProceed only if error rate < 0.5%. Rollback = flag off.",
        "We're rolling out new_checkout gradually: a 5% canary on Monday, 25% by Wednesday, and 100% a week after the start, with the error rate kept under 0.5% as the condition for each step. Rolling back means switching the flag off.",
        "Hi team! new_checkout goes to 5% of users Mon, 25% Wed, all users next Mon 🎉 — but only if the error rate stays below 0.5%. If it doesn't, we flip the flag off.",
    ],
    (
        "fractions in words (hard)",
        "First one user in twenty sees the new checkout (Monday), then a quarter of users (Wednesday), then everybody a week later on Monday. Every step is conditional on errors staying under half a percent, and the kill switch is turning new_checkout off.",
        WITHIN,
    ),
    (
        "numbered, abbreviations",
        "1. Mon — new_checkout → 5% of users\n2. Wed — 25%\n3. Mon (wk 2) — 100%\nCondition: err rate < 0.5%. Rollback: flag off.",
        WITHIN,
    ),
    (
        "mirrored comparison",
        "Exposure schedule for new_checkout: 5% (Mon), 25% (Wed), 100% (next Mon). We keep going only while 0.5% exceeds the error rate; rolling back means switching the flag off.",
        WITHIN,
    ),
    (
        "50% on Wednesday",
        "We'll enable the new_checkout flag for 5% of users on Monday, raise it to 50% on Wednesday and to 100% the following Monday, as long as the error rate stays below 0.5%. To roll back, we simply switch the flag off.",
        BEYOND,
    ),
    (
        "a 5% error gate",
        "Rollout plan for new_checkout: 5% Monday → 25% Wednesday → 100% next Monday. We only advance while errors stay under 5%; rollback is just disabling the flag.",
        BEYOND,
    ),
)

family(
    "website page load audit summary",
    [
        "On mobile, the homepage's LCP is 4.2 s against a 2.5 s target. The main cause is the 3.1 MB hero image. Converting it to WebP and lazy-loading below-the-fold images should bring LCP to about 2.3 s.",
        "- Mobile LCP: 4.2 s (target 2.5 s)\n- Culprit: 3.1 MB hero image\n- Fix: WebP hero + lazy-load below-the-fold images\n- Expected LCP: ~2.3 s",
        "Largest Contentful Paint on the mobile homepage is 4.2 seconds, well above the 2.5-second goal, mostly because the hero image weighs 3.1 MB. Serve it as WebP and lazy-load images below the fold; we estimate LCP will drop to roughly 2.3 seconds.",
        "The 3.1 MB hero image is the bottleneck: mobile LCP on the homepage is 4.2 s (target: 2.5 s). Recommended: WebP conversion for the hero and lazy loading for images below the fold → projected LCP ≈ 2.3 s.",
        "Audit result: homepage fails the mobile LCP target (4.2 s vs 2.5 s). Root cause: hero image of 3.1 MB. Action: convert to WebP, lazy-load below-the-fold images. Expected outcome: ~2.3 s.",
        "Mobile homepage LCP = 4.2s; goal 2.5s. Hero image is 3.1MB. WebP + lazy-loading below-the-fold images → ~2.3s.",
        "Hi! The homepage is slow on phones: LCP is 4.2 s, and we aim for 2.5 s. Most of that comes from the 3.1 MB hero image. If we convert it to WebP and lazy-load the images further down the page, LCP should land around 2.3 s.",
        "Findings (mobile, homepage): LCP 4.2 s, target 2.5 s. Main contributor: 3.1 MB hero image. Recommendations: (1) convert hero to WebP, (2) lazy-load below-the-fold images. Estimated LCP after fixes: 2.3 s.",
        "We expect LCP to improve from 4.2 s to about 2.3 s on mobile — beating the 2.5 s target — once the 3.1 MB homepage hero image is converted to WebP and below-the-fold images are lazy-loaded.",
    ],
    (
        "milliseconds, spelled out (hard)",
        "On smartphones the home page's Largest Contentful Paint clocks in at 4,200 ms, versus a 2,500 ms budget. The 3.1-megabyte hero banner at the top is to blame. Re-encode it as WebP and defer loading of the images below the fold; that should get us near 2,300 ms.",
        WITHIN,
    ),
    (
        "numbered",
        "1. Problem: mobile LCP 4.2 s (target 2.5 s)\n2. Cause: 3.1 MB hero image\n3. Fix A: WebP\n4. Fix B: lazy-load below-the-fold images\n5. Expected: ~2.3 s",
        WITHIN,
    ),
    (
        "questions and answers",
        "What's wrong? Mobile LCP on the homepage is 4.2 s; the target is 2.5 s. Why? The hero image is 3.1 MB. Fix? WebP for the hero, lazy-load images below the fold. Result? About 2.3 s.",
        WITHIN,
    ),
    (
        "on desktop",
        "On desktop, the homepage's LCP is 4.2 s against a 2.5 s target. The main cause is the 3.1 MB hero image. Converting it to WebP and lazy-loading below-the-fold images should bring LCP to about 2.3 s.",
        BEYOND,
    ),
    (
        "AVIF",
        "- Mobile LCP: 4.2 s (target 2.5 s)\n- Culprit: 3.1 MB hero image\n- Fix: AVIF hero + lazy-load below-the-fold images\n- Expected LCP: ~2.3 s",
        BEYOND,
    ),
)

# ============================================================================ help and how-to

family(
    "two-factor authentication setup help",
    [
        "Go to Settings > Security and click Enable two-factor authentication. Scan the QR code with your authenticator app, enter the 6-digit code it shows, and save the 10 backup codes somewhere safe.",
        "1. Settings → Security\n2. Enable 2FA\n3. Scan the QR code with an authenticator app\n4. Type in the 6-digit code\n5. Store your 10 backup codes safely",
        "To turn on 2FA, open Security in your Settings, choose to enable two-factor authentication, and scan the QR code using an authenticator app. Confirm with the six-digit code from the app. You'll then get 10 backup codes — keep them in a safe place.",
        "- Where: Settings › Security\n- Action: enable two-factor authentication\n- Scan: QR code, authenticator app\n- Confirm: 6-digit code\n- Then: save 10 backup codes",
        "Happy to help! Head to Settings, then Security, and hit 'Enable two-factor authentication'. Open your authenticator app and scan the QR code, then enter the 6-digit code from the app. Finally, keep the 10 backup codes somewhere safe.",
        "Enable 2FA under Settings > Security: scan the QR with an authenticator app, enter the 6-digit code, and store the 10 backup codes in a safe place.",
        "Save the 10 backup codes somewhere safe — that's the last step. Before that: Settings > Security > Enable two-factor authentication, scan the QR code with your authenticator app, and enter the six-digit code.",
        "Two-factor authentication (2FA) is in Settings under Security. Click Enable, scan the QR code in an authenticator app, enter the 6-digit code to confirm, and keep the 10 backup codes safe.",
        "Steps: open Settings → Security → Enable two-factor authentication. Use an authenticator app to scan the QR code. Enter the 6-digit verification code. Store the ten backup codes securely.",
    ],
    (
        "passive, spelled out (hard)",
        "Two-factor authentication is switched on from the Security section of Settings. The QR code displayed there is scanned with an authenticator app, and the six-digit code the app generates is typed in to confirm. Ten backup codes are then issued; they should be kept somewhere secure.",
        WITHIN,
    ),
    (
        "emoji steps",
        "⚙️ Settings → 🔒 Security → Enable 2FA\n📱 Scan the QR code with your authenticator app\n🔢 Enter the 6-digit code\n📝 Save your 10 backup codes somewhere safe",
        WITHIN,
    ),
    (
        "one-time code, stash",
        "Settings > Security > Enable two-factor auth. Scan the QR with an authenticator app, enter the 6-digit one-time code it shows, and stash the 10 backup codes somewhere safe.",
        WITHIN,
    ),
    (
        "code by SMS",
        "Go to Settings > Security and click Enable two-factor authentication. Enter your phone number, type in the 6-digit code we send you by SMS, and save the 10 backup codes somewhere safe.",
        BEYOND,
    ),
    (
        "8-digit code",
        "Enable 2FA under Settings > Security: scan the QR with an authenticator app, enter the 8-digit code, and store the 10 backup codes in a safe place.",
        BEYOND,
    ),
)

family(
    "printer offline troubleshooting reply",
    [
        "If the printer shows as offline, switch it off for 30 seconds and back on. Check that it's on the same Wi-Fi network as your laptop — it only supports the 2.4 GHz band. If it's still offline, remove it in Settings > Printers and add it again.",
        "1. Power the printer off, wait 30 s, power on.\n2. Make sure printer and laptop are on the same Wi-Fi (printer needs 2.4 GHz).\n3. Still offline? Remove and re-add it under Settings > Printers.",
        "First restart the printer (off for 30 seconds). Then confirm it's connected to the same Wi-Fi as the laptop, on the 2.4 GHz band since it can't use 5 GHz. Finally, if it still shows offline, delete the printer in Settings > Printers and add it back.",
        "- Restart: off 30 seconds, then on\n- Network: same Wi-Fi as the laptop, 2.4 GHz only\n- Last resort: remove + re-add in Settings > Printers",
        "Sorry about that! Try turning the printer off for 30 seconds, then on again. It needs to be on the same wireless network as your laptop, and it only works on 2.4 GHz. If that doesn't fix it, go to Settings > Printers, remove it, and add it again.",
        "Remove and re-add the printer in Settings > Printers if nothing else works. Before that, power-cycle it (30 seconds off) and make sure it shares the laptop's Wi-Fi network on 2.4 GHz.",
        "Quick fix list: 30-second power cycle; same Wi-Fi as the laptop (2.4 GHz band — the printer doesn't support 5 GHz); then delete and re-add it via Settings > Printers.",
        "Please restart the printer by switching it off for 30 seconds. Next, verify that it and your laptop use the same Wi-Fi network; note the printer only connects on 2.4 GHz. If it still shows offline, remove the printer from Settings > Printers and add it again.",
        "The printer showing 'offline' can usually be fixed in three steps: turn it off for thirty seconds, check it's on the laptop's Wi-Fi (2.4 GHz band), and re-add it under Settings > Printers after removing it.",
    ],
    (
        "half a minute, WLAN (hard)",
        "Give the printer a half-minute power nap — off, then back on. Next, confirm it's joined to the very same WLAN as your notebook, using the 2.4 GHz band (5 GHz won't work for it). Should it still report offline, delete it from Settings > Printers and set it up again.",
        WITHIN,
    ),
    (
        "questions and answers",
        "What first? Turn the printer off for 30 s, then on. Then? Put it on the same Wi-Fi as the laptop, 2.4 GHz band. Still offline? Remove it and add it again in Settings > Printers.",
        WITHIN,
    ),
    (
        "bold step headings",
        "**Step 1 – Restart**: off for 30 seconds, then on.\n**Step 2 – Network**: same Wi-Fi as your laptop, 2.4 GHz.\n**Step 3 – Re-add**: Settings > Printers, remove it, then add it again.",
        WITHIN,
    ),
    (
        "5 GHz band",
        "If the printer shows as offline, switch it off for 30 seconds and back on. Check that it's on the same Wi-Fi network as your laptop — it only supports the 5 GHz band. If it's still offline, remove it in Settings > Printers and add it again.",
        BEYOND,
    ),
    (
        "off for 30 minutes",
        "- Restart: off 30 minutes, then on\n- Network: same Wi-Fi as the laptop, 2.4 GHz only\n- Last resort: remove + re-add in Settings > Printers",
        BEYOND,
    ),
)

family(
    "git command to undo the last commit",
    [
        "Run `git reset --soft HEAD~1`. It removes the last commit but keeps its changes staged, so you can edit and recommit.",
        "Use:\n\n```\ngit reset --soft HEAD~1\n```\n\nThis undoes the most recent commit while leaving all of its changes in the staging area.",
        "`git reset --soft HEAD^` will undo your last commit; the changes stay staged (nothing is lost).",
        "To undo the latest commit but keep the work staged: git reset --soft HEAD~1. Your files are untouched and ready to be committed again.",
        "- Command: `git reset --soft HEAD~1`\n- Effect: last commit undone\n- Changes: kept, still staged",
        "The safest option is a soft reset: `git reset --soft HEAD~`. It moves the branch back one commit and leaves your changes in the index.",
        "git reset --soft HEAD~1 — undoes the previous commit, keeps all changes staged so nothing is lost.",
        "You can undo it with a soft reset of one commit:\ngit reset --soft HEAD~1\nThe commit disappears from the branch but its changes remain staged.",
        "Easy fix! `git reset --soft HEAD~1` rolls back the last commit and keeps your changes in the staging area, ready to recommit.",
    ],
    (
        "caret form, chatty (hard)",
        "No worries — `git reset --soft HEAD^` takes back your most recent commit. Everything you changed stays in the index, so you can tweak it and commit again.",
        WITHIN,
    ),
    (
        "numbered",
        "1. `git reset --soft HEAD~1`\n2. Your last commit is gone, but its changes are still staged.\n3. Adjust and `git commit` again.",
        WITHIN,
    ),
    (
        "question and answer",
        "Q: How do I undo my last commit without losing work?\nA: `git reset --soft HEAD~1` — the commit is removed and the changes remain staged.",
        WITHIN,
    ),
    (
        "hard reset",
        "Run `git reset --hard HEAD~1`. It removes the last commit and discards its changes, so you start clean.",
        BEYOND,
    ),
    (
        "two commits back",
        "To undo the latest commit but keep the work staged: git reset --soft HEAD~2. Your files are untouched and ready to be committed again.",
        BEYOND,
    ),
)

# ============================================================================ home, pets, sport

family(
    "houseplant watering advice",
    [
        "Water your monstera when the top 5 cm of soil is dry — about once a week in summer and every two weeks in winter. Keep it in bright, indirect light and never let the pot sit in standing water.",
        "Monstera care: water roughly weekly in summer, every 2 weeks in winter, once the top 5 cm of soil has dried out. Bright indirect light; empty the saucer so roots don't sit in water.",
        "- Water when the top 5 cm of soil feels dry\n- Summer: about once a week\n- Winter: about every two weeks\n- Light: bright but indirect\n- Don't leave water standing in the saucer",
        "Check the soil with your finger: if the top 5 cm are dry, it's time to water. In summer that's usually once a week; in winter, every other week. Give it plenty of indirect light and avoid standing water.",
        "Your monstera likes bright, indirect light. Let the top 5 cm of soil dry before watering (weekly in summer, fortnightly in winter), and tip out any water that collects in the saucer.",
        "Summer: water ~1×/week. Winter: ~every 2 weeks. Rule of thumb: wait until the top 5 cm of soil is dry. Place in bright indirect light; no standing water.",
        "Hi! Monsteras are pretty forgiving. Water when the upper 5 cm of the soil is dry, which works out to about weekly during summer and about every two weeks over winter. They thrive in bright, indirect light and hate wet feet, so don't let the pot stand in water.",
        "Watering frequency depends on the season: about once a week in summer and once every two weeks in winter, always after the top 5 cm of soil has dried. Keep it out of direct sun — bright, indirect light is best — and make sure no water is left standing under the pot.",
        "Water the monstera every 7 days or so in summer and every 14 days or so in winter, when the top 5 cm of soil is dry. Bright, indirect light. Never let it sit in water.",
    ],
    (
        "millimetres, fortnightly (hard)",
        "Wait until the uppermost 50 mm of soil has dried out, then water: roughly every seven days through the summer months and fortnightly in winter. A bright spot out of direct sun suits it, and drain off any excess so it never sits in a puddle.",
        WITHIN,
    ),
    (
        "emoji bullets",
        "💧 Water when the top 5 cm of soil is dry\n☀️ Summer: ~weekly\n❄️ Winter: ~every 2 weeks\n🌤️ Bright, indirect light\n🚫 No standing water",
        WITHIN,
    ),
    (
        "questions and answers",
        "How often? About once a week in summer, every two weeks in winter. How do I know? The top 5 cm of soil is dry. Where? Bright, indirect light. Anything to avoid? Standing water in the pot.",
        WITHIN,
    ),
    (
        "seasons swapped",
        "Water your monstera when the top 5 cm of soil is dry — about every two weeks in summer and once a week in winter. Keep it in bright, indirect light and never let the pot sit in standing water.",
        BEYOND,
    ),
    (
        "direct sun",
        "Your monstera likes full, direct sunlight. Let the top 5 cm of soil dry before watering (weekly in summer, fortnightly in winter), and tip out any water that collects in the saucer.",
        BEYOND,
    ),
)

family(
    "puppy feeding guidance",
    [
        "Feed your puppy 250 g of dry food a day, split into three meals until he's 6 months old, then two meals. Always leave fresh water out, and never give cooked bones.",
        "Daily amount: 250 g kibble. Meals: 3 per day up to 6 months, then 2. Fresh water at all times. No cooked bones.",
        "- 250 g of dry food per day\n- 3 meals/day until 6 months of age\n- 2 meals/day after that\n- Fresh water always available\n- No cooked bones",
        "Until your puppy is six months old, divide 250 g of dry food into three meals a day; after that, two meals are enough. Make sure fresh water is always available and don't feed cooked bones.",
        "He should get 250 grams of kibble daily. Up to 6 months, spread it over 3 meals; from 6 months on, 2 meals. Water: fresh, always. Bones: never cooked ones.",
        "Puppy feeding plan 🐶: 250 g dry food per day → 3 meals until 6 months, 2 meals afterwards. Keep a bowl of fresh water out all day. Cooked bones are a no-go.",
        "Give 250 g of dry food each day. While he's under 6 months, that's three smaller meals; once he turns 6 months, switch to two. Fresh water should always be within reach, and please don't give him cooked bones.",
        "Total per day: 250 g. Split: three meals (until six months), then two meals. Always fresh water. Never cooked bones.",
        "The recommended amount is 250 g of dry food daily, given as three meals until he reaches 6 months and as two meals from then on. Fresh drinking water must always be available; cooked bones should never be given.",
    ],
    (
        "a quarter kilo, half a year (hard)",
        "A quarter of a kilo of kibble per day is right. Serve it in three portions until he's half a year old, then move to two portions. Keep his water bowl fresh and full, and leave cooked bones off the menu.",
        WITHIN,
    ),
    (
        "table in kilograms",
        "| Age | Meals/day |\n|---|---|\n| under 6 months | 3 |\n| 6 months + | 2 |\n\nDaily total: 0.25 kg dry food. Fresh water always; no cooked bones.",
        WITHIN,
    ),
    (
        "terse",
        "250 g/day dry food; 3 meals → 2 meals at 6 mo. Water always. No cooked bones.",
        WITHIN,
    ),
    (
        "until 12 months",
        "Feed your puppy 250 g of dry food a day, split into three meals until he's 12 months old, then two meals. Always leave fresh water out, and never give cooked bones.",
        BEYOND,
    ),
    (
        "cooked bones allowed",
        "Daily amount: 250 g kibble. Meals: 3 per day up to 6 months, then 2. Fresh water at all times. Cooked bones are fine as a treat.",
        BEYOND,
    ),
)

family(
    "electric car charging time estimate",
    [
        "Charging your 60 kWh battery from 20% to 80% adds about 36 kWh. On your 11 kW home wallbox that takes roughly 3.5 hours; at a 150 kW DC fast charger it's about 25 minutes.",
        "20→80% on a 60 kWh pack ≈ 36 kWh. Home (11 kW): ~3 h 30 min. DC fast (150 kW): ~25 min.",
        "- Energy needed: ~36 kWh (20% to 80% of 60 kWh)\n- 11 kW wallbox: about 3.5 h\n- 150 kW rapid charger: about 25 minutes",
        "You'll need around 36 kWh to go from 20 to 80 percent. With the 11 kW wall charger at home, expect about three and a half hours. A 150 kW DC fast charger would do it in roughly 25 minutes.",
        "At home on 11 kW it will take about 210 minutes to get from 20% to 80% (about 36 kWh into the 60 kWh battery). On a 150 kW DC charger, plan on about 25 minutes.",
        "Short answer: ~3.5 hours at home, ~25 minutes at a fast charger. Details: 60 kWh × (80% − 20%) = 36 kWh; an 11 kW wallbox delivers that in about 3.5 h including losses, while a 150 kW DC station needs about 25 min.",
        "From 20 to 80 per cent your car takes on roughly 36 kWh. Expect ~3½ hours on the 11 kW home charger, or ~25 minutes on 150 kW DC rapid charging.",
        "Roughly 3 hours 30 minutes on your 11 kW home wallbox, or about 25 min on a 150 kW fast charger, to top up the 60 kWh battery from 20% to 80% (≈36 kWh).",
        "Good question! Going from 20% to 80% means adding about 36 kWh to your 60 kWh battery. The 11 kW wallbox at home needs around 3.5 hours for that, whereas a 150 kW DC fast charger gets it done in about 25 minutes. ⚡",
    ],
    (
        "fifths, minutes, kilowatts spelled out (hard)",
        "Topping up from a fifth of the battery to four-fifths means roughly 36 kilowatt-hours. Your eleven-kilowatt wallbox needs about 210 min for that; a 150-kilowatt DC rapid charger, about 25 min.",
        WITHIN,
    ),
    (
        "table",
        "| Charger | Power | 20% → 80% |\n|---|---|---|\n| Home wallbox | 11 kW | ~3.5 h |\n| DC fast | 150 kW | ~25 min |\n\nEnergy added: ~36 kWh of the 60 kWh battery.",
        WITHIN,
    ),
    (
        "AC abbreviation, hrs",
        "Home AC charging at 11 kW: approx. 3.5 hrs for 20–80% (≈36 kWh of 60 kWh). DC fast charging at 150 kW: approx. 25 mins.",
        WITHIN,
    ),
    (
        "five and a half hours",
        "You'll need around 36 kWh to go from 20 to 80 percent. With the 11 kW wall charger at home, expect about five and a half hours. A 150 kW DC fast charger would do it in roughly 25 minutes.",
        BEYOND,
    ),
    (
        "from 40% to 100%",
        "Charging your 60 kWh battery from 40% to 100% adds about 36 kWh. On your 11 kW home wallbox that takes roughly 3.5 hours; at a 150 kW DC fast charger it's about 25 minutes.",
        BEYOND,
    ),
)

family(
    "marathon training week plan",
    [
        "Monday: rest\nTuesday: 8 km easy\nWednesday: 6 × 800 m intervals\nThursday: rest\nFriday: 6 km easy\nSaturday: rest\nSunday: 28 km long run",
        "Mon rest · Tue 8 km easy · Wed 6x800 m intervals · Thu rest · Fri 6 km easy · Sat rest · Sun 28 km long run",
        "This week has three rest days (Monday, Thursday, Saturday). Run 8 km easy on Tuesday, do 6 × 800 m intervals on Wednesday, an easy 6 km on Friday, and finish with a 28 km long run on Sunday.",
        "| Day | Session |\n|---|---|\n| Mon | Rest |\n| Tue | Easy 8 km |\n| Wed | Intervals: 6 × 800 m |\n| Thu | Rest |\n| Fri | Easy 6 km |\n| Sat | Rest |\n| Sun | Long run, 28 km |",
        "- Mon: rest\n- Tue: easy run, 8 km\n- Wed: 6 x 800 m repeats\n- Thu: rest\n- Fri: easy 6 km\n- Sat: rest\n- Sun: long run 28 km",
        "Your week: the key session is Sunday's 28 km long run. Before that, Wednesday brings 6 × 800 m intervals, with easy runs of 8 km on Tuesday and 6 km on Friday. Monday, Thursday and Saturday are rest days.",
        "Week plan 🏃\nMonday — off\nTuesday — 8 km, easy pace\nWednesday — intervals, 6 × 800 m\nThursday — off\nFriday — 6 km, easy\nSaturday — off\nSunday — long run of 28 km",
        "Rest on Mon, Thu and Sat. Tue: 8 km easy. Wed: 6×800m. Fri: 6 km easy. Sun: 28 km long.",
        "Start the week with a rest day on Monday, then an easy 8 km on Tuesday and 6 × 800 m intervals on Wednesday. Rest Thursday, run an easy 6 km Friday, rest Saturday, and do your 28 km long run on Sunday.",
    ],
    (
        "backwards, number words (hard)",
        "Sunday is the big one: twenty-eight kilometres, long and steady. Saturday, Thursday and Monday are full rest days. Friday and Tuesday are easy runs of six and eight kilometres respectively, and Wednesday is six repeats of 800 metres.",
        WITHIN,
    ),
    (
        "numbered days, k",
        "1. Mon – rest\n2. Tue – easy 8k\n3. Wed – 6 × 800 m\n4. Thu – rest\n5. Fri – easy 6k\n6. Sat – rest\n7. Sun – 28k long run",
        WITHIN,
    ),
    (
        "grouped rest days, interval total",
        "Weekly plan: Mon/Thu/Sat rest; Tue easy 8 km; Wed intervals, 6 × 800 m (4.8 km of fast running); Fri easy 6 km; Sun long run 28 km.",
        WITHIN,
    ),
    (
        "long run 18 km",
        "Monday: rest\nTuesday: 8 km easy\nWednesday: 6 × 800 m intervals\nThursday: rest\nFriday: 6 km easy\nSaturday: rest\nSunday: 18 km long run",
        BEYOND,
    ),
    (
        "intervals moved to Thursday",
        "Start the week with a rest day on Monday, then an easy 8 km on Tuesday and rest on Wednesday. Do 6 × 800 m intervals Thursday, run an easy 6 km Friday, rest Saturday, and do your 28 km long run on Sunday.",
        BEYOND,
    ),
)

family(
    "pour-over coffee brewing answer",
    [
        "Use 15 g of coffee to 240 g of water (1:16). Grind medium-fine, heat the water to 93 °C, bloom with 30 g for 30 seconds, then pour the rest so the whole brew finishes in about 3 minutes.",
        "Ratio 1:16 — 15 g coffee, 240 g water at 93 °C. Medium-fine grind. Bloom 30 s with 30 g water; total time ~3 min.",
        "- Coffee: 15 g, medium-fine\n- Water: 240 g at 93 °C (ratio 1:16)\n- Bloom: 30 g water, 30 s\n- Total brew time: about 3 minutes",
        "For one cup, weigh out 15 grams of coffee and grind it medium-fine. Heat 240 grams of water to 93 degrees Celsius. Pour 30 grams to bloom, wait 30 seconds, then add the remaining water slowly; aim to finish around the 3-minute mark.",
        "A 1:16 ratio works well: 15 g of grounds for 240 ml of water. Water at 93 °C, grind medium-fine, 30-second bloom with 30 ml, and a total brew time of about three minutes.",
        "Start with a 30-second bloom (30 g water) and finish pouring so the total brew takes ~3 min. Dose: 15 g coffee, medium-fine, and 240 g of 93 °C water — a 1:16 ratio.",
        "Pour-over basics ☕: 15 g coffee + 240 g water (1:16), 93 °C, medium-fine grind, bloom 30 s with 30 g, done in about 3 minutes.",
        "I'd go with 1 part coffee to 16 parts water, so 15 g of coffee and 240 g of water at 93 °C. Grind medium-fine. Let it bloom for 30 seconds using 30 g of water, then continue pouring; the brew should take about 3 minutes overall.",
        "15 g : 240 g (1:16). 93 °C. Medium-fine. Bloom 30 g / 30 s. Total ≈ 3:00.",
    ],
    (
        "seconds and millilitres (hard)",
        "Go for one part grounds to sixteen parts water — 15 g of beans, ground medium-fine, with 240 ml of water at 93 °C. Wet the bed with 30 ml and let it bloom for half a minute, then keep pouring so you're done after roughly 180 seconds.",
        WITHIN,
    ),
    (
        "numbered",
        "1. Grind 15 g of coffee medium-fine.\n2. Heat 240 g of water to 93 °C.\n3. Bloom with 30 g for 30 s.\n4. Pour the rest; finish at about 3 min.\nRatio: 1:16.",
        WITHIN,
    ),
    (
        "recipe card",
        "**Dose** 15 g · **Water** 240 g · **Ratio** 1:16 · **Temp** 93 °C · **Grind** medium-fine · **Bloom** 30 g, 30 s · **Brew time** ~3 min",
        WITHIN,
    ),
    (
        "coarse grind",
        "Ratio 1:16 — 15 g coffee, 240 g water at 93 °C. Coarse grind. Bloom 30 s with 30 g water; total time ~3 min.",
        BEYOND,
    ),
    (
        "88 degrees",
        "For one cup, weigh out 15 grams of coffee and grind it medium-fine. Heat 240 grams of water to 88 degrees Celsius. Pour 30 grams to bloom, wait 30 seconds, then add the remaining water slowly; aim to finish around the 3-minute mark.",
        BEYOND,
    ),
)

family(
    "bee sting first aid advice",
    [
        "Scrape the stinger out with the edge of a bank card rather than squeezing it. Wash the area with soap and water and hold a cold pack on it for 10 minutes. An antihistamine helps with itching. Call emergency services if the face or throat swells or breathing becomes difficult.",
        "1. Remove the stinger by scraping (card edge) — don't squeeze.\n2. Wash with soap and water.\n3. Cold pack, 10 minutes.\n4. Antihistamine for itching.\n5. Swelling of face/throat or trouble breathing → call emergency services.",
        "Call emergency services right away if the face or throat swells or there's difficulty breathing. Otherwise: scrape the sting out with a card edge (no squeezing), wash with soap and water, apply a cold pack for 10 minutes, and take an antihistamine if it itches.",
        "- Stinger: scrape it off sideways with a card; don't squeeze\n- Clean: soap + water\n- Cool: cold pack 10 min\n- Itch: antihistamine\n- Emergency: facial/throat swelling or breathing problems",
        "Ouch! First get the stinger out by scraping it with the edge of a credit card — squeezing can push in more venom. Wash with soap and water, then cool it with a cold pack for ten minutes. For itching, an antihistamine works well. If your face or throat starts swelling, or you struggle to breathe, call emergency services immediately.",
        "Scrape, don't squeeze: use a card edge to remove the stinger. Then soap and water, a cold pack for 10 minutes, and an antihistamine for the itch. Trouble breathing or a swelling face/throat means calling emergency services.",
        "Bee sting care: scrape out the stinger with a card (don't pinch it), clean with soap and water, cold compress for 10 min, antihistamine if itchy. Call emergency services for throat or face swelling or difficulty breathing.",
        "Use a flat edge, like a bank card, to scrape the stinger away — don't squeeze it out. Clean the spot with soap and water. Ten minutes of cold pack will ease swelling, and an antihistamine can calm the itch. Emergency services are needed if swelling spreads to the face or throat or if breathing gets hard.",
        "Remove the stinger by scraping with a card edge (not squeezing), wash with soap and water, cold pack for 10 minutes, antihistamine for itching. Swollen face or throat, or breathing difficulty? Call emergency services.",
    ],
    (
        "ice in a cloth, no pinching (hard)",
        "Flick the sting away by dragging a card's edge across the skin instead of pinching it. Clean the spot with soap and water, then rest ice wrapped in a cloth on it for ten minutes. For the itch, take an antihistamine. If the face or throat puffs up or breathing gets laboured, phone emergency services straight away.",
        WITHIN,
    ),
    (
        "questions and answers",
        "Stinger? Scrape it out with a card edge — don't squeeze. Then? Soap and water, cold pack for 10 min. Itchy? Antihistamine. When to call emergency services? Face or throat swelling, or trouble breathing.",
        WITHIN,
    ),
    (
        "emoji list",
        "🐝 Scrape out the stinger with a card (no squeezing)\n🧼 Wash with soap + water\n🧊 Cold pack for 10 min\n💊 Antihistamine for itching\n🚑 Face/throat swelling or breathing trouble → emergency services",
        WITHIN,
    ),
    (
        "warm compress",
        "Scrape the stinger out with the edge of a bank card rather than squeezing it. Wash the area with soap and water and hold a warm compress on it for 10 minutes. An antihistamine helps with itching. Call emergency services if the face or throat swells or breathing becomes difficult.",
        BEYOND,
    ),
    (
        "squeeze with tweezers",
        "Squeeze, don't scrape: use tweezers to pull the stinger out. Then soap and water, a cold pack for 10 minutes, and an antihistamine for the itch. Trouble breathing or a swelling face/throat means calling emergency services.",
        BEYOND,
    ),
)

# ============================================================================ teaching

family(
    "tides explanation for a quiz",
    [
        "Tides are caused mainly by the Moon's gravity, with a smaller contribution from the Sun. Most coasts see two high tides a day, about 12 hours 25 minutes apart. Spring tides, with the largest range, happen at new and full moon, when the Sun, Moon and Earth line up.",
        "- Main cause: the Moon's gravitational pull (the Sun adds a smaller effect)\n- Two high tides per day, ~12 h 25 min apart\n- Spring tides (biggest range): new moon and full moon, when Sun, Moon and Earth align",
        "The Moon's gravity is the main driver of the tides; the Sun's is weaker. That gives most coastlines two high tides daily, roughly 12 hours and 25 minutes apart. When the Sun, Earth and Moon are aligned — at full moon and new moon — we get spring tides, which have the greatest range.",
        "Answer: mainly the Moon. Its gravity (plus a smaller pull from the Sun) produces two high tides a day, spaced about 12 h 25 min apart. The largest tides, spring tides, come at full and new moon because the Sun and Moon line up with Earth.",
        "Spring tides — the ones with the biggest difference between high and low water — occur at new and full moon, when Sun, Moon and Earth are in a line. Tides themselves come mostly from the Moon's gravity, with the Sun playing a smaller role, and there are usually two high tides a day about 12 hours 25 minutes apart.",
        "Why tides? The Moon's gravity, mostly (the Sun helps less). How often? Twice a day, ~12 h 25 min between highs. Biggest ones? Spring tides at new/full moon, when Sun–Moon–Earth align.",
        "Great question! 🌊 The Moon's pull is the main reason for tides, and the Sun adds a smaller effect. Most places get two high tides each day, about 12 hours 25 minutes apart. At new moon and full moon the Sun, Moon and Earth line up, giving spring tides with the largest range.",
        "Tides result chiefly from lunar gravity, and to a lesser extent from solar gravity. Two high waters occur per day at most coasts, separated by approximately 12 h 25 min. Spring tides, having the maximum range, occur at new and full moon, when Sun, Moon and Earth align.",
        "Mostly the Moon: its gravity raises the tides, with the Sun contributing less. Expect two high tides a day, about 12 hours 25 minutes apart. Spring tides (largest range) happen at full and new moon, when all three bodies line up.",
    ],
    (
        "lunar, 745 minutes (hard)",
        "Lunar gravity does most of the work in raising tides; solar gravity chips in, but less. Typical coasts get a pair of high waters daily, some 745 minutes apart. The strongest, spring tides, show up when the Moon is new or full, as Sun, Earth and Moon fall into a line.",
        WITHIN,
    ),
    (
        "numbered",
        "1. Cause: mostly the Moon's gravity; the Sun's is smaller.\n2. Rhythm: 2 high tides/day, ~12 h 25 min apart.\n3. Spring tides: biggest range, at new and full moon (Sun, Moon, Earth aligned).",
        WITHIN,
    ),
    (
        "bold headings",
        "**Cause** — Moon's gravity (Sun: smaller share)\n**Frequency** — two highs daily, 12 h 25 min apart\n**Spring tides** — largest range; new & full moon; Sun–Moon–Earth in line",
        WITHIN,
    ),
    (
        "mainly the Sun",
        "Tides are caused mainly by the Sun's gravity, with a smaller contribution from the Moon. Most coasts see two high tides a day, about 12 hours 25 minutes apart. Spring tides, with the largest range, happen at new and full moon, when the Sun, Moon and Earth line up.",
        BEYOND,
    ),
    (
        "spring tides at quarter moons",
        "The Moon's gravity is the main driver of the tides; the Sun's is weaker. That gives most coastlines two high tides daily, roughly 12 hours and 25 minutes apart. When the Sun and Moon are at right angles — at the first and last quarter — we get spring tides, which have the greatest range.",
        BEYOND,
    ),
)

family(
    "average speed word problem solution",
    [
        "First leg: 180 km ÷ 60 km/h = 3 h. Second leg: 120 km ÷ 40 km/h = 3 h. Total: 300 km in 6 h, so the average speed is 50 km/h.",
        "Time = distance/speed. 180/60 = 3 hours; 120/40 = 3 hours. Total distance 300 km, total time 6 hours. Average speed = 300/6 = 50 km/h.",
        "The car takes 3 h for the first 180 km and another 3 h for the 120 km at 40 km/h. That's 300 km in 6 hours, an average of 50 km/h.\n\n**Answer: 50 km/h**",
        "- Leg 1: 180 km at 60 km/h → 3 h\n- Leg 2: 120 km at 40 km/h → 3 h\n- Total: 300 km, 6 h\n- Average speed: 50 km/h",
        "Average speed is total distance over total time. Distance: 180 + 120 = 300 km. Time: 3 h + 3 h = 6 h. Average: 300 ÷ 6 = 50 km/h.",
        "Answer: 50 km/h. (300 km total; 3 hours at 60 km/h plus 3 hours at 40 km/h = 6 hours.)",
        "Step 1: t1 = 180/60 = 3 h.\nStep 2: t2 = 120/40 = 3 h.\nStep 3: v_avg = (180 + 120)/(3 + 3) = 300/6 = 50 km/h.",
        "It drives 3 hours on the first part (180 km at 60 km/h) and 3 hours on the second (120 km at 40 km/h). So 300 km over 6 hours gives an average speed of 50 km/h.",
        "The average speed is 50 km/h: the trip covers 300 km and lasts 6 hours in total (3 h + 3 h).",
    ],
    (
        "minutes, number words (hard)",
        "Leg one lasts 180 minutes (180 km at 60 km/h) and leg two another 180 minutes (120 km at 40 km/h), 360 minutes in all. Three hundred kilometres in six hours works out to fifty kilometres per hour on average.",
        WITHIN,
    ),
    (
        "one equation",
        "v̄ = Σd / Σt = (180 + 120) km / (180/60 + 120/40) h = 300 km / 6 h = 50 km/h",
        WITHIN,
    ),
    (
        "kph, terse",
        "Leg times 3 h and 3 h; total 300 km in 6 h → avg 50 kph.",
        WITHIN,
    ),
    (
        "miles per hour",
        "The average speed is 50 mph: the trip covers 300 km and lasts 6 hours in total (3 h + 3 h).",
        BEYOND,
    ),
    (
        "second leg 2 hours",
        "First leg: 180 km ÷ 60 km/h = 3 h. Second leg: 120 km ÷ 40 km/h = 2 h. Total: 300 km in 5 h, so the average speed is 60 km/h.",
        BEYOND,
    ),
)

# ============================================================================ tool calls as JSON

family(
    "JSON tool call to post a chat message",
    [
        '{"tool": "post_message", "arguments": {"channel": "#deploys", "text": "Release 3.2.0 is live in production.", "notify_channel": false}}',
        '{"tool": "post_message", "arguments": {"channel": "#deploys", "text": "v3.2.0 has been deployed to production", "notify_channel": false}}',
        '{\n  "tool": "post_message",\n  "arguments": {\n    "channel": "#deploys",\n    "text": "Production is now running release 3.2.0.",\n    "notify_channel": false\n  }\n}',
        '{"tool": "post_message", "arguments": {"text": "Deployed 3.2.0 to prod ✅", "channel": "#deploys", "notify_channel": false}}',
        '{"arguments": {"channel": "#deploys", "notify_channel": false, "text": "Release 3.2.0 shipped to production."}, "tool": "post_message"}',
        '{"tool": "post_message", "arguments": {"channel": "#deploys", "text": "Heads up: version 3.2.0 is now live in prod.", "notify_channel": false}}',
        '{"tool":"post_message","arguments":{"channel":"#deploys","text":"3.2.0 is out in production","notify_channel":false}}',
        '{"tool": "post_message", "arguments": {"channel": "#deploys", "text": "Production deploy of release 3.2.0 completed successfully.", "notify_channel": false}}',
        '```json\n{"tool": "post_message", "arguments": {"channel": "#deploys", "text": "Release v3.2.0 is live on production", "notify_channel": false}}\n```',
    ],
    (
        "keys reordered, new wording (hard)",
        '{\n  "arguments": {\n    "notify_channel": false,\n    "text": "We just rolled out 3.2.0 — it is serving production traffic now.",\n    "channel": "#deploys"\n  },\n  "tool": "post_message"\n}',
        WITHIN,
    ),
    (
        "rocket emoji",
        '{"tool": "post_message", "arguments": {"channel": "#deploys", "text": "🚀 v3.2.0 live in prod", "notify_channel": false}}',
        WITHIN,
    ),
    (
        "minified, release reached production",
        '{"tool":"post_message","arguments":{"notify_channel":false,"channel":"#deploys","text":"The 3.2.0 release has reached production."}}',
        WITHIN,
    ),
    (
        "another channel",
        '{"tool": "post_message", "arguments": {"channel": "#general", "text": "Release 3.2.0 is live in production.", "notify_channel": false}}',
        BEYOND,
    ),
    (
        "notifies the channel",
        '{"tool": "post_message", "arguments": {"channel": "#deploys", "text": "v3.2.0 has been deployed to production", "notify_channel": true}}',
        BEYOND,
    ),
)

family(
    "JSON tool call to resize a cloud volume",
    [
        '{"tool": "resize_volume", "arguments": {"volume_id": "vol-0a7c3f", "new_size_gb": 200, "region": "eu-west-1", "reason": "Data disk is 95% full"}}',
        '{"tool": "resize_volume", "arguments": {"volume_id": "vol-0a7c3f", "region": "eu-west-1", "new_size_gb": 200, "reason": "Disk usage at 95%"}}',
        '{\n  "tool": "resize_volume",\n  "arguments": {\n    "volume_id": "vol-0a7c3f",\n    "new_size_gb": 200,\n    "region": "eu-west-1",\n    "reason": "Volume nearly full (95% used)"\n  }\n}',
        '{"tool": "resize_volume", "arguments": {"new_size_gb": 200, "volume_id": "vol-0a7c3f", "region": "eu-west-1", "reason": "95% capacity reached on the data volume"}}',
        '{"arguments": {"volume_id": "vol-0a7c3f", "new_size_gb": 200, "region": "eu-west-1", "reason": "running out of space (95 percent used)"}, "tool": "resize_volume"}',
        '{"tool":"resize_volume","arguments":{"volume_id":"vol-0a7c3f","new_size_gb":200,"region":"eu-west-1","reason":"disk 95% full, growing it"}}',
        '{"tool": "resize_volume", "arguments": {"volume_id": "vol-0a7c3f", "new_size_gb": 200, "region": "eu-west-1", "reason": "Usage has reached 95 %; expanding the volume"}}',
        '```json\n{\n  "tool": "resize_volume",\n  "arguments": {"volume_id": "vol-0a7c3f", "new_size_gb": 200, "region": "eu-west-1", "reason": "Low free space: 95% utilised"}\n}\n```',
        '{"tool": "resize_volume", "arguments": {"region": "eu-west-1", "volume_id": "vol-0a7c3f", "new_size_gb": 200, "reason": "Data volume almost full at 95%"}}',
    ],
    (
        "only 5% free, keys reordered (hard)",
        '{"tool": "resize_volume", "arguments": {"reason": "Only 5% free space left on the data disk", "region": "eu-west-1", "new_size_gb": 200, "volume_id": "vol-0a7c3f"}}',
        WITHIN,
    ),
    (
        "pretty-printed, short reason",
        '{\n    "tool": "resize_volume",\n    "arguments": {\n        "region": "eu-west-1",\n        "volume_id": "vol-0a7c3f",\n        "new_size_gb": 200,\n        "reason": "Grow volume: 95% used"\n    }\n}',
        WITHIN,
    ),
    (
        "with a sentence before it",
        'Calling the tool:\n{"tool": "resize_volume", "arguments": {"volume_id": "vol-0a7c3f", "new_size_gb": 200, "region": "eu-west-1", "reason": "Data disk is 95% full"}}',
        WITHIN,
    ),
    (
        "20 GB",
        '{"tool": "resize_volume", "arguments": {"volume_id": "vol-0a7c3f", "new_size_gb": 20, "region": "eu-west-1", "reason": "Data disk is 95% full"}}',
        BEYOND,
    ),
    (
        "another region",
        '{"tool": "resize_volume", "arguments": {"volume_id": "vol-0a7c3f", "region": "eu-west-2", "new_size_gb": 200, "reason": "Disk usage at 95%"}}',
        BEYOND,
    ),
)

# ============================================================================ code from coding agents

family(
    "Python retry with backoff from a coding agent",
    [
        "import time\n\nimport requests\n\n\ndef fetch_with_retry(url, attempts=3):\n    for i in range(attempts):\n        try:\n            return requests.get(url, timeout=5)\n        except requests.RequestException:\n            if i == attempts - 1:\n                raise\n            time.sleep(2 ** i)",
        'import time\nimport requests\n\n\ndef fetch_with_retry(url, attempts=3):\n    """GET url, retrying with exponential backoff on network errors."""\n    for attempt in range(attempts):\n        try:\n            return requests.get(url, timeout=5)\n        except requests.RequestException:\n            if attempt == attempts - 1:\n                raise\n            time.sleep(2**attempt)',
        "import time\nimport requests\n\n\ndef fetch_with_retry(url, attempts=3):\n    for i in range(attempts):\n        try:\n            return requests.get(url, timeout=5)\n        except requests.RequestException:\n            if i < attempts - 1:\n                time.sleep(2 ** i)  # 1s, 2s, ...\n            else:\n                raise",
        "import time\n\nimport requests\n\n\ndef fetch_with_retry(url, attempts=3):\n    for attempt in range(attempts):\n        try:\n            return requests.get(url, timeout=5)\n        except requests.RequestException:\n            if attempt + 1 == attempts:\n                raise\n            time.sleep(2 ** attempt)",
        "Here's a helper that retries with exponential backoff:\n\n```python\nimport time\n\nimport requests\n\n\ndef fetch_with_retry(url, attempts=3):\n    for i in range(attempts):\n        try:\n            return requests.get(url, timeout=5)\n        except requests.RequestException:\n            if i == attempts - 1:\n                raise\n            time.sleep(2 ** i)\n```",
        "import time\n\nimport requests\n\n\ndef fetch_with_retry(url: str, attempts: int = 3) -> requests.Response:\n    for i in range(attempts):\n        try:\n            return requests.get(url, timeout=5)\n        except requests.RequestException:\n            if i == attempts - 1:\n                raise\n            time.sleep(2**i)",
        "from time import sleep\n\nimport requests\n\n\ndef fetch_with_retry(url, attempts=3):\n    for i in range(attempts):\n        try:\n            return requests.get(url, timeout=5)\n        except requests.RequestException:\n            if i == attempts - 1:\n                raise  # give up after the last attempt\n            sleep(2 ** i)",
        "import time\nimport requests\n\n\ndef fetch_with_retry(url, attempts=3):\n    # exponential backoff between attempts\n    for i in range(attempts):\n        try:\n            return requests.get(url, timeout=5)\n        except requests.RequestException:\n            if i == attempts - 1:\n                raise\n            delay = 2 ** i\n            time.sleep(delay)",
        "```python\nimport time\n\nimport requests\n\n\ndef fetch_with_retry(url, attempts=3):\n    for i in range(attempts):\n        try:\n            return requests.get(url, timeout=5.0)\n        except requests.RequestException:\n            if i == attempts - 1:\n                raise\n            time.sleep(2 ** i)\n```\n\nWith the default of 3 attempts it waits 1 s and then 2 s between tries.",
    ],
    (
        "renamed, bit shift (hard)",
        "import time\n\nimport requests\n\n\ndef fetch_with_retry(url, attempts=3):\n    for n in range(attempts):\n        try:\n            return requests.get(url, timeout=5)\n        except requests.RequestException:\n            if n == attempts - 1:\n                raise\n            time.sleep(1 << n)",
        WITHIN,
    ),
    (
        "mirrored comparison",
        "import time\n\nimport requests\n\n\ndef fetch_with_retry(url, attempts=3):\n    for i in range(attempts):\n        try:\n            return requests.get(url, timeout=5)\n        except requests.RequestException:\n            if attempts - 1 == i:\n                raise\n            time.sleep(2 ** i)",
        WITHIN,
    ),
    (
        "prose first",
        "Up to three tries with exponential backoff (1 s, then 2 s):\n\n```python\nimport time\nimport requests\n\ndef fetch_with_retry(url, attempts=3):\n    for i in range(attempts):\n        try:\n            return requests.get(url, timeout=5)\n        except requests.RequestException:\n            if i == attempts - 1:\n                raise\n            time.sleep(2 ** i)\n```",
        WITHIN,
    ),
    (
        "linear backoff",
        "import time\n\nimport requests\n\n\ndef fetch_with_retry(url, attempts=3):\n    for i in range(attempts):\n        try:\n            return requests.get(url, timeout=5)\n        except requests.RequestException:\n            if i == attempts - 1:\n                raise\n            time.sleep(2 * i)",
        BEYOND,
    ),
    (
        "timeout 50",
        "import time\n\nimport requests\n\n\ndef fetch_with_retry(url, attempts=3):\n    for attempt in range(attempts):\n        try:\n            return requests.get(url, timeout=50)\n        except requests.RequestException:\n            if attempt + 1 == attempts:\n                raise\n            time.sleep(2 ** attempt)",
        BEYOND,
    ),
)

family(
    "SQL query for last month's top sellers",
    [
        "SELECT p.name, SUM(oi.quantity) AS units_sold\nFROM order_items oi\nJOIN orders o ON o.id = oi.order_id\nJOIN products p ON p.id = oi.product_id\nWHERE o.created_at >= date_trunc('month', current_date) - interval '1 month'\n  AND o.created_at < date_trunc('month', current_date)\nGROUP BY p.name\nORDER BY units_sold DESC\nLIMIT 10;",
        "select p.name, sum(oi.quantity) as units_sold\nfrom order_items oi\njoin orders o on o.id = oi.order_id\njoin products p on p.id = oi.product_id\nwhere o.created_at >= date_trunc('month', current_date) - interval '1 month'\n  and o.created_at < date_trunc('month', current_date)\ngroup by p.name\norder by units_sold desc\nlimit 10;",
        "WITH last_month AS (\n  SELECT id\n  FROM orders\n  WHERE created_at >= date_trunc('month', current_date) - interval '1 month'\n    AND created_at < date_trunc('month', current_date)\n)\nSELECT p.name, SUM(oi.quantity) AS units_sold\nFROM order_items oi\nJOIN last_month lm ON lm.id = oi.order_id\nJOIN products p ON p.id = oi.product_id\nGROUP BY p.name\nORDER BY units_sold DESC\nLIMIT 10;",
        "SELECT p.name, SUM(oi.quantity) AS units_sold\nFROM order_items oi\nJOIN orders o ON o.id = oi.order_id\nJOIN products p ON p.id = oi.product_id\nWHERE o.created_at >= date_trunc('month', current_date) - interval '1 month'\n  AND o.created_at < date_trunc('month', current_date)\nGROUP BY p.name\nORDER BY 2 DESC\nFETCH FIRST 10 ROWS ONLY;",
        "Top 10 products by units sold last calendar month:\n\n```sql\nSELECT p.name, SUM(oi.quantity) AS units_sold\nFROM order_items oi\nJOIN orders o ON o.id = oi.order_id\nJOIN products p ON p.id = oi.product_id\nWHERE o.created_at >= date_trunc('month', current_date) - interval '1 month'\n  AND o.created_at < date_trunc('month', current_date)\nGROUP BY p.name\nORDER BY units_sold DESC\nLIMIT 10;\n```",
        "SELECT products.name, SUM(order_items.quantity) AS units_sold\nFROM order_items\nINNER JOIN orders ON orders.id = order_items.order_id\nINNER JOIN products ON products.id = order_items.product_id\nWHERE orders.created_at >= DATE_TRUNC('month', CURRENT_DATE) - INTERVAL '1 month'\n  AND orders.created_at < DATE_TRUNC('month', CURRENT_DATE)\nGROUP BY products.name\nORDER BY units_sold DESC\nLIMIT 10;",
        "-- top 10 products by units, last calendar month\nSELECT p.name, SUM(oi.quantity) AS total_units\nFROM order_items AS oi\nJOIN orders AS o ON o.id = oi.order_id\nJOIN products AS p ON p.id = oi.product_id\nWHERE o.created_at >= date_trunc('month', current_date) - interval '1 month'\n  AND o.created_at < date_trunc('month', current_date)\nGROUP BY p.name\nORDER BY total_units DESC\nLIMIT 10;",
        "SELECT p.name, SUM(oi.quantity) AS units_sold\nFROM order_items oi\nJOIN orders o ON o.id = oi.order_id\nJOIN products p ON p.id = oi.product_id\nWHERE o.created_at >= date_trunc('month', current_date) - interval '1 month'\n  AND o.created_at < date_trunc('month', current_date)\nGROUP BY 1\nORDER BY units_sold DESC\nLIMIT 10;",
        "SELECT\n    p.name,\n    SUM(oi.quantity) AS units_sold\nFROM order_items oi\n    JOIN orders o ON o.id = oi.order_id\n    JOIN products p ON p.id = oi.product_id\nWHERE o.created_at >= date_trunc('month', now()) - interval '1 month'\n  AND o.created_at < date_trunc('month', now())\nGROUP BY p.name\nORDER BY units_sold DESC\nLIMIT 10;",
    ],
    (
        "renamed aliases, mirrored joins (hard)",
        "SELECT prod.name, SUM(li.quantity) AS qty\nFROM order_items li\nJOIN orders ord ON li.order_id = ord.id\nJOIN products prod ON li.product_id = prod.id\nWHERE ord.created_at < date_trunc('month', current_date)\n  AND ord.created_at >= date_trunc('month', current_date) - interval '1 month'\nGROUP BY prod.name\nORDER BY qty DESC\nLIMIT 10;",
        WITHIN,
    ),
    (
        "subquery filter",
        "SELECT p.name, SUM(oi.quantity) AS units_sold\nFROM order_items oi\nJOIN products p ON p.id = oi.product_id\nWHERE oi.order_id IN (\n  SELECT id FROM orders\n  WHERE created_at >= date_trunc('month', current_date) - interval '1 month'\n    AND created_at < date_trunc('month', current_date)\n)\nGROUP BY p.name\nORDER BY units_sold DESC\nLIMIT 10;",
        WITHIN,
    ),
    (
        "one line, lowercase",
        "select p.name, sum(oi.quantity) as units_sold from order_items oi join orders o on o.id = oi.order_id join products p on p.id = oi.product_id where o.created_at >= date_trunc('month', current_date) - interval '1 month' and o.created_at < date_trunc('month', current_date) group by p.name order by units_sold desc limit 10;",
        WITHIN,
    ),
    (
        "ascending",
        "SELECT p.name, SUM(oi.quantity) AS units_sold\nFROM order_items oi\nJOIN orders o ON o.id = oi.order_id\nJOIN products p ON p.id = oi.product_id\nWHERE o.created_at >= date_trunc('month', current_date) - interval '1 month'\n  AND o.created_at < date_trunc('month', current_date)\nGROUP BY p.name\nORDER BY units_sold ASC\nLIMIT 10;",
        BEYOND,
    ),
    (
        "revenue instead of units",
        "select p.name, sum(oi.quantity * oi.unit_price) as revenue\nfrom order_items oi\njoin orders o on o.id = oi.order_id\njoin products p on p.id = oi.product_id\nwhere o.created_at >= date_trunc('month', current_date) - interval '1 month'\n  and o.created_at < date_trunc('month', current_date)\ngroup by p.name\norder by revenue desc\nlimit 10;",
        BEYOND,
    ),
)

family(
    "cron entry for a nightly backup",
    [
        "Add this line with `crontab -e`:\n\n```\n0 2 * * * /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1\n```\n\nIt runs the backup script every night at 2:00 AM and appends both output and errors to /var/log/backup.log.",
        "0 2 * * * /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1\n\nRuns daily at 02:00; stdout and stderr are appended to /var/log/backup.log.",
        "Open your crontab (crontab -e) and add:\n0 2 * * * /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1\nThe five fields mean minute 0, hour 2, every day of the month, every month, every weekday — i.e. 2 a.m. each night. Output and errors get appended to the log file.",
        "- Schedule: `0 2 * * *` (every day at 2 AM)\n- Command: `/usr/local/bin/backup.sh`\n- Logging: `>> /var/log/backup.log 2>&1` (appends stdout + stderr)",
        "Use this cron entry:\n\n    0 2 * * * /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1\n\nThat schedules backup.sh for 2am daily and keeps a running log of its output, including errors, in /var/log/backup.log.",
        "Sure! Run `crontab -e` and paste `0 2 * * * /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1`. Your backup will kick off at two in the morning every day, and anything it prints (errors too) is appended to /var/log/backup.log.",
        "# nightly backup at 02:00, log appended\n0 2 * * * /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1",
        "The crontab line you want is `0 2 * * * /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1` — minute 0 of hour 2, every day. The `>>` appends to the log and `2>&1` sends errors there as well.",
        "```cron\n0 2 * * * /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1\n```\nEvery night at 2:00, with stdout/stderr appended to /var/log/backup.log.",
    ],
    (
        "zero-padded fields (hard)",
        "```\n00 02 * * * /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1\n```\nFires at 02:00 every day of the week; output and errors are appended to /var/log/backup.log.",
        WITHIN,
    ),
    (
        "numbered steps",
        "1. Run `crontab -e`.\n2. Add `0 2 * * * /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1`.\n3. Save. The script now runs at 2 AM nightly, appending stdout and stderr to /var/log/backup.log.",
        WITHIN,
    ),
    (
        "seven days a week, chatty",
        "Your crontab entry: `0 2 * * * /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1`. Translation: at 2 in the morning, seven days a week, run backup.sh and tack its output (stderr included) onto the end of /var/log/backup.log.",
        WITHIN,
    ),
    (
        "2 PM",
        "Add this line with `crontab -e`:\n\n```\n0 14 * * * /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1\n```\n\nIt runs the backup script every day at 2:00 PM and appends both output and errors to /var/log/backup.log.",
        BEYOND,
    ),
    (
        "log overwritten",
        "0 2 * * * /usr/local/bin/backup.sh > /var/log/backup.log 2>&1\n\nRuns daily at 02:00; the log file is overwritten each night with stdout and stderr.",
        BEYOND,
    ),
)

family(
    "Dockerfile for a Flask app",
    [
        'FROM python:3.12-slim\nWORKDIR /app\nCOPY requirements.txt .\nRUN pip install --no-cache-dir -r requirements.txt\nCOPY . .\nEXPOSE 8000\nCMD ["gunicorn", "--bind", "0.0.0.0:8000", "app:app"]',
        '# Slim Python base image\nFROM python:3.12-slim\n\n# Work in /app\nWORKDIR /app\n\n# Install dependencies first to use the layer cache\nCOPY requirements.txt .\nRUN pip install --no-cache-dir -r requirements.txt\n\n# Copy the application code\nCOPY . .\n\nEXPOSE 8000\n\n# Serve with gunicorn\nCMD ["gunicorn", "--bind", "0.0.0.0:8000", "app:app"]',
        'A minimal Dockerfile that serves the Flask app with gunicorn on port 8000:\n\n```dockerfile\nFROM python:3.12-slim\nWORKDIR /app\nCOPY requirements.txt .\nRUN pip install --no-cache-dir -r requirements.txt\nCOPY . .\nEXPOSE 8000\nCMD ["gunicorn", "--bind", "0.0.0.0:8000", "app:app"]\n```',
        'FROM python:3.12-slim\nWORKDIR /app\nCOPY requirements.txt .\nRUN pip install --no-cache-dir -r requirements.txt\nCOPY . .\nEXPOSE 8000\nCMD ["gunicorn", "-b", "0.0.0.0:8000", "app:app"]',
        'FROM python:3.12-slim\n\nWORKDIR /app\n\nCOPY requirements.txt ./\nRUN pip install --no-cache-dir -r requirements.txt\n\nCOPY . ./\n\nEXPOSE 8000\nCMD ["gunicorn", "--bind", "0.0.0.0:8000", "app:app"]',
        'FROM python:3.12-slim\nWORKDIR /app\nCOPY requirements.txt /app/\nRUN pip install --no-cache-dir -r requirements.txt\nCOPY . /app/\nEXPOSE 8000\nCMD ["gunicorn", "--bind", "0.0.0.0:8000", "app:app"]',
        'FROM python:3.12-slim\nWORKDIR /app\nCOPY requirements.txt .\nRUN pip install --no-cache-dir -r requirements.txt\nCOPY . .\nEXPOSE 8000\nCMD ["gunicorn", "--bind=0.0.0.0:8000", "app:app"]',
        'FROM python:3.12-slim\n\nWORKDIR /app\n\nCOPY requirements.txt .\nRUN pip install --no-cache-dir -r requirements.txt\n\nCOPY . .\n\nEXPOSE 8000\nCMD ["gunicorn", "--bind", "0.0.0.0:8000", "app:app"]\n\nBuild it with `docker build -t flask-app .` and run it with `docker run -p 8000:8000 flask-app`.',
        'FROM python:3.12-slim\nWORKDIR /app\nCOPY requirements.txt .\nRUN pip install --no-cache-dir --requirement requirements.txt\nCOPY . .\nEXPOSE 8000\nCMD ["gunicorn", "--bind", "0.0.0.0:8000", "app:app"]',
    ],
    (
        "comments, python -m pip, long flags (hard)",
        '# base\nFROM python:3.12-slim\n# app directory\nWORKDIR /app\n# deps\nCOPY requirements.txt ./\nRUN python -m pip install --no-cache-dir --requirement requirements.txt\n# source\nCOPY . ./\n# gunicorn on 8000\nEXPOSE 8000\nCMD ["gunicorn", "--bind=0.0.0.0:8000", "app:app"]',
        WITHIN,
    ),
    (
        "absolute paths",
        'FROM python:3.12-slim\nWORKDIR /app\nCOPY requirements.txt /app/requirements.txt\nRUN pip install --no-cache-dir -r /app/requirements.txt\nCOPY . /app\nEXPOSE 8000\nCMD ["gunicorn", "-b", "0.0.0.0:8000", "app:app"]',
        WITHIN,
    ),
    (
        "fenced, explained after",
        '```dockerfile\nFROM python:3.12-slim\nWORKDIR /app\nCOPY requirements.txt .\nRUN pip install --no-cache-dir -r requirements.txt\nCOPY . .\nEXPOSE 8000\nCMD ["gunicorn", "--bind", "0.0.0.0:8000", "app:app"]\n```\nGunicorn listens on port 8000 inside the container, and the dependency layer is cached because requirements.txt is copied first.',
        WITHIN,
    ),
    (
        "Python 3.8 image",
        'FROM python:3.8-slim\nWORKDIR /app\nCOPY requirements.txt .\nRUN pip install --no-cache-dir -r requirements.txt\nCOPY . .\nEXPOSE 8000\nCMD ["gunicorn", "--bind", "0.0.0.0:8000", "app:app"]',
        BEYOND,
    ),
    (
        "port 5000",
        'FROM python:3.12-slim\n\nWORKDIR /app\n\nCOPY requirements.txt ./\nRUN pip install --no-cache-dir -r requirements.txt\n\nCOPY . ./\n\nEXPOSE 5000\nCMD ["gunicorn", "--bind", "0.0.0.0:5000", "app:app"]',
        BEYOND,
    ),
)

family(
    "GitHub Actions workflow running the tests",
    [
        'name: tests\n\non:\n  push:\n    branches: [main]\n  pull_request:\n\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-python@v5\n        with:\n          python-version: "3.12"\n      - run: pip install -r requirements.txt\n      - run: pytest -q',
        'name: tests\non:\n  push:\n    branches:\n      - main\n  pull_request:\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - name: Check out code\n        uses: actions/checkout@v4\n      - name: Set up Python\n        uses: actions/setup-python@v5\n        with:\n          python-version: "3.12"\n      - name: Install dependencies\n        run: pip install -r requirements.txt\n      - name: Run tests\n        run: pytest -q',
        'Save this as .github/workflows/tests.yml:\n\n```yaml\nname: tests\n\non:\n  push:\n    branches: [main]\n  pull_request:\n\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-python@v5\n        with:\n          python-version: "3.12"\n      - run: pip install -r requirements.txt\n      - run: pytest -q\n```',
        "name: tests\n\non:\n  push:\n    branches: ['main']\n  pull_request:\n\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-python@v5\n        with:\n          python-version: '3.12'\n      - run: pip install -r requirements.txt\n      - run: pytest -q",
        'name: CI\n\non:\n  push:\n    branches: [main]\n  pull_request:\n\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-python@v5\n        with:\n          python-version: "3.12"\n      - name: Install\n        run: pip install -r requirements.txt\n      - name: Test\n        run: pytest -q',
        'name: tests\n\non:\n  push:\n    branches: ["main"]\n  pull_request: {}\n\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-python@v5\n        with: {python-version: "3.12"}\n      - run: pip install -r requirements.txt\n      - run: pytest -q',
        "# Runs the test suite on pushes to main and on every pull request\nname: tests\non:\n  push:\n    branches: [main]\n  pull_request:\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-python@v5\n        with:\n          python-version: 3.12\n      - run: pip install -r requirements.txt\n      - run: pytest -q",
        'name: tests\n\non:\n  pull_request:\n  push:\n    branches: [main]\n\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-python@v5\n        with:\n          python-version: "3.12"\n      - run: pip install -r requirements.txt\n      - run: pytest -q',
        'name: tests\non:\n  push:\n    branches: [main]\n  pull_request:\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - name: Set up Python 3.12\n        uses: actions/setup-python@v5\n        with:\n          python-version: "3.12"\n      - name: Install requirements\n        run: |\n          pip install -r requirements.txt\n      - name: Pytest\n        run: pytest -q',
    ],
    (
        "one run block, keys reordered (hard)",
        'jobs:\n  test:\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-python@v5\n        with:\n          python-version: "3.12"\n      - run: |\n          pip install -r requirements.txt\n          pytest -q\n    runs-on: ubuntu-latest\non:\n  pull_request:\n  push:\n    branches: [main]\nname: tests',
        WITHIN,
    ),
    (
        "renamed steps, block lists",
        'name: Tests\non:\n  push:\n    branches:\n      - main\n  pull_request:\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - name: Checkout\n        uses: actions/checkout@v4\n      - name: Python 3.12\n        uses: actions/setup-python@v5\n        with:\n          python-version: "3.12"\n      - name: Dependencies\n        run: pip install -r requirements.txt\n      - name: Unit tests\n        run: pytest -q',
        WITHIN,
    ),
    (
        "explained first",
        'This workflow runs on pushes to main and on pull requests, on ubuntu-latest with Python 3.12:\n\n```yaml\nname: tests\non:\n  push:\n    branches: [main]\n  pull_request:\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-python@v5\n        with:\n          python-version: "3.12"\n      - run: pip install -r requirements.txt\n      - run: pytest -q\n```',
        WITHIN,
    ),
    (
        "Python 3.10",
        'name: tests\n\non:\n  push:\n    branches: [main]\n  pull_request:\n\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-python@v5\n        with:\n          python-version: "3.10"\n      - run: pip install -r requirements.txt\n      - run: pytest -q',
        BEYOND,
    ),
    (
        "Windows runner",
        'name: tests\non:\n  push:\n    branches:\n      - main\n  pull_request:\njobs:\n  test:\n    runs-on: windows-latest\n    steps:\n      - name: Check out code\n        uses: actions/checkout@v4\n      - name: Set up Python\n        uses: actions/setup-python@v5\n        with:\n          python-version: "3.12"\n      - name: Install dependencies\n        run: pip install -r requirements.txt\n      - name: Run tests\n        run: pytest -q',
        BEYOND,
    ),
)

family(
    "JavaScript debounce helper",
    [
        "function debounce(fn, wait = 300) {\n  let timer;\n  return (...args) => {\n    clearTimeout(timer);\n    timer = setTimeout(() => fn(...args), wait);\n  };\n}",
        "const debounce = (fn, wait = 300) => {\n  let timeoutId;\n  return (...args) => {\n    clearTimeout(timeoutId);\n    timeoutId = setTimeout(() => fn(...args), wait);\n  };\n};",
        "/**\n * Returns a function that delays calling fn until wait ms have passed\n * since the last call.\n */\nfunction debounce(fn, wait = 300) {\n  let timer;\n  return (...args) => {\n    clearTimeout(timer);\n    timer = setTimeout(() => fn(...args), wait);\n  };\n}",
        "function debounce(fn, wait = 300) {\n  let timer\n  return (...args) => {\n    clearTimeout(timer)\n    timer = setTimeout(() => fn(...args), wait)\n  }\n}",
        "Here's a small debounce helper (default delay 300 ms):\n\n```js\nfunction debounce(fn, wait = 300) {\n  let timer;\n  return (...args) => {\n    clearTimeout(timer);\n    timer = setTimeout(() => fn(...args), wait);\n  };\n}\n```",
        "function debounce(fn, wait = 300) {\n  let t = null;\n  return (...args) => {\n    clearTimeout(t);\n    t = setTimeout(() => fn(...args), wait);\n  };\n}",
        "function debounce(fn, wait = 300) {\n  let timer;\n  return (...args) => {\n    clearTimeout(timer);\n    timer = setTimeout(fn, wait, ...args);\n  };\n}",
        "function debounce(fn, wait = 300) {\n  let timer;\n  return (...args) => {\n    if (timer) clearTimeout(timer);\n    timer = setTimeout(() => fn(...args), wait);\n  };\n}",
        "function debounce(fn, wait = 300) {\n  let timer;\n  return (...args) => {\n    // reset the timer on every call\n    clearTimeout(timer);\n    timer = setTimeout(() => {\n      fn(...args);\n    }, wait);\n  };\n}",
    ],
    (
        "renamed, extra setTimeout arguments (hard)",
        "function debounce(func, delay = 300) {\n  let handle;\n  return (...params) => {\n    clearTimeout(handle);\n    handle = setTimeout(func, delay, ...params);\n  };\n}",
        WITHIN,
    ),
    (
        "arrow, no semicolons",
        "const debounce = (fn, wait = 300) => {\n  let timer\n  return (...args) => {\n    clearTimeout(timer)\n    timer = setTimeout(() => fn(...args), wait)\n  }\n}",
        WITHIN,
    ),
    (
        "explained first",
        "Each call restarts a 300 ms timer, so fn only runs once the calls have stopped for 300 ms:\n\n```javascript\nfunction debounce(fn, wait = 300) {\n  let timer;\n  return (...args) => {\n    clearTimeout(timer);\n    timer = setTimeout(() => fn(...args), wait);\n  };\n}\n```",
        WITHIN,
    ),
    (
        "3000 ms",
        "function debounce(fn, wait = 3000) {\n  let timer;\n  return (...args) => {\n    clearTimeout(timer);\n    timer = setTimeout(() => fn(...args), wait);\n  };\n}",
        BEYOND,
    ),
    (
        "no clearTimeout",
        "const debounce = (fn, wait = 300) => {\n  let timeoutId;\n  return (...args) => {\n    timeoutId = setTimeout(() => fn(...args), wait);\n  };\n};",
        BEYOND,
    ),
)

# ============================================================================ translations

family(
    "waste collection notice translated into Dutch",
    [
        "Vanaf 1 maart wordt oud papier om de week op dinsdag opgehaald en restafval elke vrijdag. Zet de containers uiterlijk om 7.00 uur aan de straat. Glas gooit u in de glasbak op straat.",
        "Nieuwe ophaaldagen per 1 maart: papier elke twee weken op dinsdag, restafval wekelijks op vrijdag. Containers uiterlijk 7:00 uur buiten zetten. Glas hoort in de glasbak op straat.",
        "- Papier: om de twee weken, dinsdag\n- Restafval: elke vrijdag\n- Containers uiterlijk 7.00 uur buiten\n- Glas: naar de glasbakken op straat\n(geldt vanaf 1 maart)",
        "Let op: met ingang van 1 maart halen we het oud papier eens per twee weken op, op dinsdag. Het restafval wordt iedere vrijdag opgehaald. Zet uw kliko op de ophaaldag uiterlijk om 7 uur 's ochtends buiten. Glas kunt u kwijt in de glascontainers op straat.",
        "Vanaf 1 maart: papier tweewekelijks op dinsdag, restafval op vrijdag (elke week). Afvalbakken uiterlijk 7.00 uur buitenzetten. Glas: glasbak op straat.",
        "Restafval wordt vanaf 1 maart elke vrijdag opgehaald en oud papier om de week op dinsdag. De containers moeten uiterlijk om 07:00 uur buiten staan. Voor glas gebruikt u de glasbak op straat.",
        "Per 1 maart verandert de afvalinzameling: iedere vrijdag restafval, en om de twee weken op dinsdag papier. Zet de bakken uiterlijk om 7.00 uur buiten; glas gaat naar de glasbakken op straat.",
        "Vanaf 1 maart geldt: op vrijdag wordt elke week het restafval opgehaald, op dinsdag eens in de twee weken het papier. Zorg dat uw container uiterlijk om zeven uur 's ochtends buiten staat. Glas brengt u naar de glasbak op straat.",
        "Nieuw vanaf 1 maart 📅 Papier: dinsdag, om de week. Restafval: vrijdag, elke week. Containers uiterlijk 7.00 uur buiten. Glas → glasbak op straat.",
    ],
    (
        "per 14 dagen, geleegd (hard)",
        "Vanaf 1 maart wordt de papiercontainer eens per 14 dagen op dinsdag geleegd, de container voor restafval elke vrijdag. Uiterlijk 7 uur 's morgens buitenzetten. Glas deponeert u in de glasbak op straat.",
        WITHIN,
    ),
    (
        "formal, passive",
        "Met ingang van 1 maart wordt de inzameling gewijzigd. Restafval: wekelijks, op vrijdag. Oud papier: tweewekelijks, op dinsdag. U wordt verzocht de containers uiterlijk om 07.00 uur aan de straat te zetten. Glas dient in de glasbakken op straat te worden gedeponeerd.",
        WITHIN,
    ),
    (
        "table",
        "| Afval | Dag | Frequentie |\n|---|---|---|\n| Papier | dinsdag | om de week |\n| Restafval | vrijdag | elke week |\n\nContainers uiterlijk 7.00 uur buiten. Glas naar de glasbak op straat. Ingangsdatum: 1 maart.",
        WITHIN,
    ),
    (
        "paper on Thursday",
        "Vanaf 1 maart wordt oud papier om de week op donderdag opgehaald en restafval elke vrijdag. Zet de containers uiterlijk om 7.00 uur aan de straat. Glas gooit u in de glasbak op straat.",
        BEYOND,
    ),
    (
        "paper weekly",
        "Nieuwe ophaaldagen per 1 maart: papier elke week op dinsdag, restafval wekelijks op vrijdag. Containers uiterlijk 7:00 uur buiten zetten. Glas hoort in de glasbak op straat.",
        BEYOND,
    ),
)

family(
    "boat tour cancellation translated into Spanish",
    [
        "Debido al fuerte viento, la excursión en barco de hoy a las 15:00 queda cancelada. Le devolveremos el importe íntegro en un plazo de 5 días hábiles, o puede cambiar su reserva sin coste a mañana a la misma hora.",
        "Por viento fuerte, se cancela el paseo en barco de las 15:00 h de hoy. Opciones: reembolso completo en 5 días hábiles o cambio gratuito a mañana a la misma hora.",
        "Lamentamos informarle de que la excursión en barco de hoy a las 3 de la tarde se ha cancelado por el fuerte viento. Recibirá el reembolso total en un máximo de cinco días hábiles. Si lo prefiere, puede pasarse sin cargo al mismo horario de mañana.",
        "- Excursión en barco de hoy, 15:00: CANCELADA (viento fuerte)\n- Reembolso íntegro en 5 días hábiles\n- O cambio gratis a mañana, misma hora",
        "Estimado cliente: a causa del fuerte viento, hoy no saldrá la excursión en barco de las 15:00. Puede elegir entre la devolución completa del precio (en 5 días hábiles) o trasladar su plaza a mañana a las 15:00 sin ningún coste.",
        "La salida en barco prevista hoy a las 15:00 se cancela por el viento fuerte. Se reembolsará el 100 % del billete en 5 días hábiles; también puede reprogramarla gratis para mañana a la misma hora.",
        "Cancelada la excursión en barco de las 15:00 de hoy por viento fuerte 🌬️. Devolución total en 5 días hábiles o cambio sin coste a mañana a las 15:00.",
        "Debido al viento intenso, hemos tenido que cancelar el paseo en barco de hoy (15:00). Le reintegraremos todo el importe en 5 días hábiles, aunque también puede cambiarlo, sin pagar nada, para mañana a la misma hora.",
        "Hoy no habrá excursión en barco a las 15:00: el fuerte viento obliga a cancelarla. Opción A: reembolso completo (máx. 5 días hábiles). Opción B: cambio gratuito a mañana, mismo horario.",
    ],
    (
        "three in the afternoon, spelled out (hard)",
        "Por culpa del fuerte viento no podemos realizar hoy la excursión en barco de las tres de la tarde. Le devolveremos la totalidad del importe en cinco días hábiles como máximo o, si lo desea, la pasamos gratuitamente a mañana a la misma hora.",
        WITHIN,
    ),
    (
        "questions and answers",
        "¿Qué pasa? La excursión en barco de hoy a las 15:00 está cancelada por el viento fuerte. ¿Y mi dinero? Reembolso íntegro en 5 días hábiles. ¿Otra opción? Cambio sin coste a mañana, a las 15:00.",
        WITHIN,
    ),
    (
        "ticket loanword, 100 %",
        "Tour en barco de las 15:00 de hoy cancelado por viento fuerte. Su ticket se reembolsa al 100 % en un plazo de 5 días hábiles, o puede usarlo mañana a la misma hora sin coste extra.",
        WITHIN,
    ),
    (
        "half refund",
        "La salida en barco prevista hoy a las 15:00 se cancela por el viento fuerte. Se reembolsará el 50 % del billete en 5 días hábiles; también puede reprogramarla gratis para mañana a la misma hora.",
        BEYOND,
    ),
    (
        "the day after tomorrow",
        "Debido al fuerte viento, la excursión en barco de hoy a las 15:00 queda cancelada. Le devolveremos el importe íntegro en un plazo de 5 días hábiles, o puede cambiar su reserva sin coste a pasado mañana a la misma hora.",
        BEYOND,
    ),
)

# ============================================================================ markdown tables

family(
    "markdown table of evening language courses",
    [
        "| Course | Level | Days | Time | Length | Fee |\n|---|---|---|---|---|---|\n| Spanish | A1 | Mon & Wed | 18:30 | 10 weeks | €220 |\n| Italian | A2 | Tue | 19:00 | 12 weeks | €260 |\n| Japanese | A1 | Thu | 18:00 | 10 weeks | €280 |",
        "| Language | Level | Schedule | Duration | Price |\n|---|---|---|---|---|\n| Spanish | A1 | Monday and Wednesday, 18:30 | 10 wks | €220 |\n| Italian | A2 | Tuesday, 19:00 | 12 wks | €260 |\n| Japanese | A1 | Thursday, 18:00 | 10 wks | €280 |",
        "| Course | When | Weeks | Fee |\n|:--|:--|--:|--:|\n| Spanish A1 | Mon/Wed 6:30 pm | 10 | €220 |\n| Italian A2 | Tue 7:00 pm | 12 | €260 |\n| Japanese A1 | Thu 6:00 pm | 10 | €280 |",
        "Here are the evening courses:\n\n| Course | Level | Day(s) | Start | Length | Cost |\n| --- | --- | --- | --- | --- | --- |\n| Spanish | A1 | Mon, Wed | 18:30 | 10 weeks | 220 € |\n| Italian | A2 | Tue | 19:00 | 12 weeks | 260 € |\n| Japanese | A1 | Thu | 18:00 | 10 weeks | 280 € |",
        "| Course | Level | Days | Time | Length | Fee |\n|---|---|---|---|---|---|\n| Japanese | A1 | Thu | 18:00 | 10 weeks | €280 |\n| Italian | A2 | Tue | 19:00 | 12 weeks | €260 |\n| Spanish | A1 | Mon & Wed | 18:30 | 10 weeks | €220 |",
        "| Fee | Course | Level | Days | Time | Weeks |\n|---|---|---|---|---|---|\n| €220 | Spanish | A1 | Mon + Wed | 18:30 | 10 |\n| €260 | Italian | A2 | Tue | 19:00 | 12 |\n| €280 | Japanese | A1 | Thu | 18:00 | 10 |",
        "| Course | Level | Day | Time | Duration | Price (EUR) |\n|---|---|---|---|---|---|\n| Spanish | A1 | Mon, Wed | 18:30 | 10 weeks | 220 |\n| Italian | A2 | Tue | 19:00 | 12 weeks | 260 |\n| Japanese | A1 | Thu | 18:00 | 10 weeks | 280 |",
        "**Evening language courses**\n\n| Course | Level | Days | Time | Length | Fee |\n|---|---|---|---|---|---|\n| 🇪🇸 Spanish | A1 | Monday, Wednesday | 18:30 | 10 weeks | €220 |\n| 🇮🇹 Italian | A2 | Tuesday | 19:00 | 12 weeks | €260 |\n| 🇯🇵 Japanese | A1 | Thursday | 18:00 | 10 weeks | €280 |",
        "| Course | Level | Days | Time | Length | Fee |\n|---|---|---|---|---|---|\n| Japanese | A1 | Thu | 18:00 | 10 weeks | €280 |\n| Spanish | A1 | Mon & Wed | 18:30 | 10 weeks | €220 |\n| Italian | A2 | Tue | 19:00 | 12 weeks | €260 |",
    ],
    (
        "transposed table (hard)",
        "| | Spanish | Italian | Japanese |\n|---|---|---|---|\n| Level | A1 | A2 | A1 |\n| Days | Mon, Wed | Tue | Thu |\n| Time | 6:30 pm | 7 pm | 6 pm |\n| Length | 10 weeks | 12 weeks | 10 weeks |\n| Fee | €220 | €260 | €280 |",
        WITHIN,
    ),
    (
        "bullets",
        "- Spanish A1 — Mondays & Wednesdays at 18:30, 10 weeks, €220\n- Italian A2 — Tuesdays at 19:00, 12 weeks, €260\n- Japanese A1 — Thursdays at 18:00, 10 weeks, €280",
        WITHIN,
    ),
    (
        "rows reordered, 18h30",
        "| Course | Level | Days | Time | Length | Fee |\n|---|---|---|---|---|---|\n| Italian | A2 | Tue | 19h00 | 12 weeks | €260 |\n| Japanese | A1 | Thu | 18h00 | 10 weeks | €280 |\n| Spanish | A1 | Mon & Wed | 18h30 | 10 weeks | €220 |",
        WITHIN,
    ),
    (
        "Italian B1",
        "| Course | Level | Days | Time | Length | Fee |\n|---|---|---|---|---|---|\n| Spanish | A1 | Mon & Wed | 18:30 | 10 weeks | €220 |\n| Italian | B1 | Tue | 19:00 | 12 weeks | €260 |\n| Japanese | A1 | Thu | 18:00 | 10 weeks | €280 |",
        BEYOND,
    ),
    (
        "two fees swapped",
        "| Course | Level | Days | Time | Length | Fee |\n|---|---|---|---|---|---|\n| Spanish | A1 | Mon & Wed | 18:30 | 10 weeks | €280 |\n| Italian | A2 | Tue | 19:00 | 12 weeks | €260 |\n| Japanese | A1 | Thu | 18:00 | 10 weeks | €220 |",
        BEYOND,
    ),
)
