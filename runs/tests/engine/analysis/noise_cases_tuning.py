"""A further tuning set for the noise rule (issue 43): labelled text cases, written by hand.

The format is ``noise_cases``'s: each family is nine *references* — the parent's value, then
eight samples' (independent draws of the same step at a temperature near 0.9, nothing changed)
— and a few *candidates*, each with its *truth*:

- ``beyond-noise``: the candidate is what a deliberate change to an input made — it concludes
  or claims something different (another figure, unit, name, role, polarity, code literal,
  JSON value or tool);
- ``within-noise``: the candidate is one more draw of the same step — the same facts in other
  words, another order, another layout.

Every value is text (at least two words). The topics are new — none of ``noise_cases`` or
``noise_cases_unseen`` — and span the steps agents run: support replies, incident notes,
invoices, triage advice, logistics, contracts, HR, teaching, shopping, travel, housing,
insurance, security, data summaries, scheduling, product specs, JSON tool calls, SQL, Python,
shell, YAML and regex from coding agents, config changes, translations, drafted emails, search
summaries, classification rationales and markdown tables.

The rule may be tuned on this set. It was written without reading the rule and without running
it: every case is labelled by meaning, as a careful human labeller would, and many are hard on
purpose (heavy rewordings with new vocabulary; antonyms with no negation word; swapped roles;
changed units, scales and number words; one changed literal in code).
"""

from __future__ import annotations

from runs.tests.engine.analysis.noise_cases import ABSENT, BEYOND, WITHIN, Case, families

__all__ = ["ABSENT", "CASES", "Case"]

CASES: list[Case] = []
family = families(CASES)


# ============================================================================ support and ops

family(
    "password reset support reply",
    [
        "I've sent a password reset link to the email on your account. The link expires in 30 minutes, so please use it soon. If you don't see it, check your spam folder, and if nothing arrives within 10 minutes, reply here and we'll reset it manually.",
        "A reset link is on its way to your registered email address and will stay valid for 30 minutes. Please look in your junk or spam folder too. Still nothing after 10 minutes? Just reply to this message and we'll do the reset for you by hand.",
        "We've emailed you a link to reset your password; it's valid for 30 minutes. If it isn't in your inbox, check spam. No email within 10 minutes? Reply and our team will reset your password manually.",
        "Hi! Check your inbox for a password reset link — it works for the next 30 minutes. It sometimes lands in spam. If it hasn't shown up after ten minutes, let us know by replying and we'll reset the password manually.",
        "Thanks for reaching out. A password reset email has been sent to the address on file. The link inside expires after 30 minutes. If you can't find it, please check your spam or junk folder; if it still hasn't arrived in 10 minutes, reply to this ticket and we will reset it for you manually.",
        "- Reset link sent to your account email\n- Valid for 30 minutes\n- Not there? Check spam\n- Nothing after 10 minutes? Reply and we'll reset it manually",
        "Your password reset link has been sent and expires in thirty minutes. Don't forget to check the spam folder. If it doesn't arrive within 10 minutes, reply to us and we'll handle the reset manually.",
        "We just sent a reset link to your email. Please use it within 30 minutes, after which it expires. If it's not in your inbox it may be in spam; should it fail to arrive in 10 minutes, reply and we'll reset your password manually.",
        "Sent! Look for the reset email (check spam as well). The link is good for 30 minutes. If you haven't received it within 10 minutes, reply here and someone on our team will reset the password manually.",
    ],
    (
        "heavy rewording, half an hour (hard)",
        "Good news: a link for choosing a new password just went out to the address tied to your account. It lapses after half an hour, so act fairly quickly. Peek in the junk folder if it seems to be missing, and if ten minutes pass with no message, answer this email and an agent will carry out the reset for you by hand.",
        WITHIN,
    ),
    (
        "numbered steps",
        "1. Open the reset email we sent to your account address.\n2. Use the link within 30 minutes — it expires after that.\n3. Can't find it? Check spam.\n4. Nothing within 10 minutes? Reply and we'll reset it manually.",
        WITHIN,
    ),
    (
        "expires in 24 hours",
        "I've sent a password reset link to the email on your account. The link expires in 24 hours, so please use it soon. If you don't see it, check your spam folder, and if nothing arrives within 10 minutes, reply here and we'll reset it manually.",
        BEYOND,
    ),
    (
        "the two times swapped",
        "We've emailed you a link to reset your password; it's valid for 10 minutes. If it isn't in your inbox, check spam. No email within 30 minutes? Reply and our team will reset your password manually.",
        BEYOND,
    ),
    (
        "a code by text message instead",
        "We've texted a password reset code to the phone number on your account; it's valid for 30 minutes. If nothing arrives within 10 minutes, reply here and we'll reset it manually.",
        BEYOND,
    ),
    (
        "no manual reset",
        "A reset link is on its way to your registered email address and will stay valid for 30 minutes. Please look in your spam folder too. If nothing arrives within 10 minutes, request a new link — we can't reset passwords manually.",
        BEYOND,
    ),
    (
        "contractions, abbreviations",
        "A password-reset link has been emailed to the address we have for you, and it'll stop working after 30 min. Didn't get it? Check the spam folder first; if it's still not there after 10 min, just reply and we'll reset the password manually on our end.",
        WITHIN,
    ),
)

family(
    "disk space alert triage note",
    [
        "Disk alert on db-02: /var hit 92%. Cause: logrotate has been failing since Sunday so Postgres logs piled up. I rotated and compressed them by hand, freeing 40 GB; usage is now 61%. Follow-up ticket opened to fix the logrotate config.",
        "db-02 /var reached 92% usage. Root cause is a broken logrotate job (failing since Sunday) letting Postgres logs grow. Manually rotated + gzipped the logs → 40 GB freed, /var now at 61%. Opened a follow-up to repair the logrotate configuration.",
        "The /var partition on db-02 was 92% full. Postgres logs had not been rotated since Sunday because logrotate kept failing. After a manual rotation and compression we recovered 40 GB and usage dropped to 61%. A ticket is open to fix logrotate.",
        "- Host: db-02, /var at 92%\n- Cause: logrotate failing since Sunday, Postgres logs grew\n- Action: manual rotate + compress, 40 GB freed\n- Now: 61%\n- Follow-up: ticket to fix logrotate config",
        "Alert mitigated. db-02's /var filled to 92% because logrotate has failed every night since Sunday and the Postgres logs kept growing. I compressed and rotated them manually (40 GB reclaimed), bringing it to 61%. Logrotate fix tracked in a follow-up ticket.",
        "Mitigated the db-02 disk alert (/var at 92%): manual log rotation and compression freed forty gigabytes, usage now 61%. Underlying issue: logrotate failing since Sunday, so Postgres logs were never rotated. Follow-up ticket filed for the config fix.",
        "db-02: /var 92% → 61% after I manually rotated and compressed the Postgres logs (40 GB freed). They had built up because logrotate has been broken since Sunday. Ticket opened to correct the logrotate config.",
        "Postgres logs on db-02 grew unchecked since Sunday, when logrotate started failing, pushing /var to 92%. Manual rotation/compression reclaimed 40 GB; we're at 61% now. I've raised a follow-up ticket for the logrotate config.",
        "Triage: db-02 /var usage alert at 92%. Logrotate failures since Sunday → oversized Postgres logs. Rotated and compressed manually, 40 GB released, now 61%. Follow-up ticket created to fix logrotate.",
    ],
    (
        "passive, follow-up first",
        "A follow-up ticket now tracks the logrotate config repair. Background: since Sunday the rotation job on db-02 has errored out, so Postgres log files accumulated until /var stood at 92%. Rotating and gzipping them by hand gave back 40 GB, and the partition sits at 61%.",
        WITHIN,
    ),
    (
        "terse shorthand",
        "db-02 /var 92%: logrotate broken since Sun, pg logs ballooned. Hand-rotated/compressed, -40 GB, now 61%. Follow-up ticket for logrotate conf.",
        WITHIN,
    ),
    (
        "another host",
        "Disk alert on db-03: /var hit 92%. Cause: logrotate has been failing since Sunday so Postgres logs piled up. I rotated and compressed them by hand, freeing 40 GB; usage is now 61%. Follow-up ticket opened to fix the logrotate config.",
        BEYOND,
    ),
    (
        "less freed, still high",
        "db-02 /var reached 92% usage. Root cause is a broken logrotate job (failing since Sunday) letting Postgres logs grow. Manually rotated + gzipped the logs → 4 GB freed, /var now at 88%. Opened a follow-up to repair the logrotate configuration.",
        BEYOND,
    ),
    (
        "another cause",
        "The /var partition on db-02 was 92% full. A nightly backup job has been writing uncompressed dumps to /var since Sunday. After deleting the old dumps we recovered 40 GB and usage dropped to 61%. A ticket is open to move backups to the backup volume.",
        BEYOND,
    ),
    (
        "bullets, percent spelled out",
        "Summary\n* db-02 /var usage peaked at 92 percent\n* Postgres logs not rotated since Sunday (logrotate failing)\n* Manual rotation + compression: forty GB reclaimed, down to 61 percent\n* Ticket raised to fix the logrotate config",
        WITHIN,
    ),
)

# ============================================================================ finance

family(
    "overdue invoice reminder email",
    [
        "Hi Dana,\n\nA quick reminder that invoice INV-2291 for €1,450.00 was due on 3 March and is now 14 days overdue. Please pay by bank transfer to the IBAN on the invoice. Note that a 2% late fee applies once it is 30 days overdue. If you've already paid, please disregard this note.\n\nBest regards,\nSam",
        "Dear Dana, our records show invoice INV-2291 (€1,450.00, due 3 March) remains unpaid, 14 days past due. Kindly settle it by bank transfer using the IBAN printed on the invoice. A 2% late fee will be added after 30 days overdue. Apologies if payment is already on its way. Kind regards, Sam",
        "Hello Dana — friendly nudge: INV-2291 for €1,450 fell due on March 3rd and is 14 days late. Bank transfer to the IBAN on the invoice works best. Heads-up that we add a 2% late fee at 30 days overdue. Ignore this if you've paid already. Thanks, Sam",
        "Subject: Reminder – INV-2291 overdue\n\nHi Dana,\nInvoice INV-2291 (€1,450.00) was due 3 March; it's now fourteen days overdue. Please transfer the amount to the IBAN shown on the invoice. After 30 days overdue a 2% late fee is charged. If payment has already been made, no action is needed.\nSam",
        "Dear Dana,\nI'm writing about invoice INV-2291, €1,450.00, which was payable on 3 March and is 14 days overdue. Could you arrange a bank transfer to the IBAN listed on the invoice? Please be aware a late fee of 2% applies from 30 days overdue. If you have already paid, please ignore this reminder.\nRegards,\nSam",
        "Hi Dana, just following up on INV-2291. The €1,450.00 balance was due on 3 March and is 14 days overdue. You can pay by bank transfer to the IBAN on the invoice. Invoices more than 30 days overdue incur a 2% late fee. Already paid? Then please disregard. Cheers, Sam",
        "Dana,\n\nPayment reminder:\n- Invoice: INV-2291\n- Amount: €1,450.00\n- Due: 3 March (14 days overdue)\n- Pay by: bank transfer to the IBAN on the invoice\n- Late fee: 2% once 30 days overdue\n\nIf you've already paid, please ignore this.\nSam",
        "Hi Dana, hope you're well. Invoice INV-2291 for €1,450.00 is now 14 days past its 3 March due date. Please send payment by bank transfer (IBAN on the invoice). A 2% late fee kicks in at 30 days overdue. If it's already been settled, thank you and please ignore this. Best, Sam",
        "Dear Dana, this is a reminder that INV-2291 (EUR 1,450.00) was due on 3 March and is 14 days overdue. Please pay via bank transfer to the IBAN on the invoice; a 2% late fee applies after 30 days overdue. Disregard if already paid. Sam",
    ],
    (
        "warmer rewording, wire and surcharge (hard)",
        "Hi Dana,\n\nHope all is good! Our books still show INV-2291 — €1,450.00, payable on 3 March — as open, two weeks after the due date. The simplest way to settle it is a wire to the IBAN printed on the invoice. Once an invoice is 30 days late, a 2% surcharge is added. If the money has already gone out, please ignore this email.\n\nThanks so much,\nSam",
        WITHIN,
    ),
    (
        "bullets in another order",
        "Dana,\n\n- Amount: €1,450.00\n- Invoice: INV-2291\n- Overdue by 14 days (due 3 March)\n- 2% late fee after 30 days overdue\n- Payment: bank transfer, IBAN on the invoice\n\nPlease ignore this if payment has already been made.\nSam",
        WITHIN,
    ),
    (
        "digits transposed in the amount",
        "Hi Dana,\n\nA quick reminder that invoice INV-2291 for €4,150.00 was due on 3 March and is now 14 days overdue. Please pay by bank transfer to the IBAN on the invoice. Note that a 2% late fee applies once it is 30 days overdue. If you've already paid, please disregard this note.\n\nBest regards,\nSam",
        BEYOND,
    ),
    (
        "late fee 5%",
        "Dear Dana, our records show invoice INV-2291 (€1,450.00, due 3 March) remains unpaid, 14 days past due. Kindly settle it by bank transfer using the IBAN printed on the invoice. A 5% late fee will be added after 30 days overdue. Apologies if payment is already on its way. Kind regards, Sam",
        BEYOND,
    ),
    (
        "pay by card link",
        "Hi Dana, just following up on INV-2291. The €1,450.00 balance was due on 3 March and is 14 days overdue. Please pay by card through the payment link in the invoice email. Invoices more than 30 days overdue incur a 2% late fee. Already paid? Then please disregard. Cheers, Sam",
        BEYOND,
    ),
    (
        "payer and payee swapped",
        "Hi Dana,\n\nA quick note that we still owe you for invoice INV-2291 (€1,450.00), which was due on 3 March and is now 14 days overdue. We will pay by bank transfer to the IBAN on your invoice, and we understand a 2% late fee applies once it is 30 days overdue.\n\nBest regards,\nSam",
        BEYOND,
    ),
    (
        "formal, passive",
        "Dear Dana,\n\nPlease be reminded that payment of €1,450.00 under invoice INV-2291 fell due on 3 March and has now been outstanding for 14 days. Settlement by bank transfer to the IBAN shown on the invoice is requested. A late-payment fee of 2% is applied once an invoice is 30 days overdue. Should payment already have been made, kindly disregard this message.\n\nYours sincerely,\nSam",
        WITHIN,
    ),
)

family(
    "mortgage affordability summary",
    [
        "A $250,000 loan over 30 years at 5.1% comes to about $1,357 a month. That puts your debt-to-income ratio at 31%, under the lender's 36% limit, so the loan looks affordable.",
        "Monthly payment: roughly $1,357 ($250,000, 30-year term, 5.1%). Debt-to-income would be 31%, below the 36% cap — affordable.",
        "At 5.1% over 30 years, borrowing $250,000 costs around $1,357 per month. Your DTI would be 31%, which stays under the 36% maximum, so this mortgage is affordable for you.",
        "- Loan: $250,000, 30 years, 5.1%\n- Payment: ≈ $1,357/month\n- Debt-to-income: 31% (limit 36%)\n- Verdict: affordable",
        "With a 30-year, 5.1% mortgage of $250,000 you'd pay about $1,357 monthly. That's a 31% debt-to-income ratio, comfortably below the lender's 36% threshold. Verdict: you can afford it.",
        "You can afford this loan. $250k at 5.1% for 30 years is ~$1,357 a month, giving a DTI of 31% against a 36% limit.",
        "The estimated repayment on $250,000 (5.1%, thirty years) is $1,357 a month, for a debt-to-income ratio of 31%. Since that's below the 36% limit, the mortgage is affordable.",
        "Your monthly repayment would be close to $1,357 for a $250,000, 30-year loan at 5.1%. Debt-to-income: 31%, inside the lender's 36% ceiling. Affordable.",
        "Affordability check: payment ≈ $1,357/mo on $250,000 at 5.1% over 30 years; DTI 31% vs. max 36%. Result: affordable.",
    ],
    (
        "reworded, within reach",
        "Borrowing a quarter of a million dollars at 5.1% across a thirty-year term works out near $1,357 in monthly installments. Your debt would then take up 31% of income — the lender tolerates up to 36% — so this is within reach.",
        WITHIN,
    ),
    (
        "figures first, verdict last",
        "DTI 31% (36% allowed). Monthly cost about $1,357 for $250,000 at 5.1%, 30 yrs. Conclusion: affordable.",
        WITHIN,
    ),
    (
        "above the limit, not affordable",
        "A $250,000 loan over 30 years at 5.1% comes to about $1,357 a month. That puts your debt-to-income ratio at 41%, above the lender's 36% limit, so the loan does not look affordable.",
        BEYOND,
    ),
    (
        "15-year term",
        "Monthly payment: roughly $1,990 ($250,000, 15-year term, 5.1%). Debt-to-income would be 45%, above the 36% cap — not affordable.",
        BEYOND,
    ),
    (
        "another rate",
        "At 6.1% over 30 years, borrowing $250,000 costs around $1,515 per month. Your DTI would be 35%, which stays under the 36% maximum, so this mortgage is affordable for you.",
        BEYOND,
    ),
    (
        "verdict first, percent spelled out",
        "Verdict: affordable. Payments on the $250,000 mortgage (thirty years at 5.1 percent) would be ~$1,357/month, meaning 31% of income goes to debt — still under the 36% the lender allows.",
        WITHIN,
    ),
)

# ============================================================================ health

family(
    "sprained ankle triage advice",
    [
        "This sounds like a mild sprain. Rest the ankle, ice it for 20 minutes every 2–3 hours, wrap it with a compression bandage and keep it raised. Go to urgent care if you can't put weight on it or your foot goes numb, and see a doctor if it isn't better within a week.",
        "Likely a mild ankle sprain. Use rest, ice (20 minutes at a time, every 2 to 3 hours), compression and elevation. If you cannot bear weight or feel numbness in the foot, go to urgent care; if there's no improvement after a week, book a doctor's appointment.",
        "From what you describe, it's probably a mild sprain. Keep off it, apply ice for 20 minutes every two to three hours, use a compression wrap and elevate the leg. Urgent care is needed if you can't stand on it or the foot becomes numb. See your doctor if it hasn't improved in 7 days.",
        "Probable mild sprain.\n- Rest\n- Ice: 20 min every 2–3 h\n- Compression bandage\n- Elevate\nUrgent care if: unable to bear weight, or numbness in the foot.\nDoctor if: not improving after one week.",
        "It's most likely a mild sprain, which usually heals at home. Rest it, ice it for 20 minutes every 2-3 hours, compress it with an elastic bandage and keep it elevated. Seek urgent care if putting weight on it is impossible or your foot feels numb; otherwise see a doctor if it's not better in a week.",
        "Mild sprain is the likely cause. Home care: rest, 20-minute ice sessions every 2–3 hours, a compression bandage, and elevation. Head to urgent care if you can't walk on it or notice numbness. If a week passes without improvement, see a doctor.",
        "Sounds like a mild sprain. The usual approach is RICE: rest, ice for twenty minutes every 2–3 hours, compression, elevation. Go to urgent care if you're unable to put weight on the ankle or the foot goes numb, and get it checked by a doctor if it's no better after a week.",
        "This is probably a mild sprain. Please rest it and keep it raised, use a compression bandage, and ice it 20 minutes at a time every 2–3 hours. If you can't bear weight on it or your foot is numb, go to urgent care. No improvement in a week? See a doctor.",
        "A mild sprain seems most likely. Treat it with rest, ice (20 min, every 2–3 hours), compression and elevation. Red flags needing urgent care: can't bear weight, numb foot. See a doctor if it hasn't improved within one week.",
    ],
    (
        "RICE spelled out, warnings first (hard)",
        "Two warning signs mean urgent care straight away: being unable to stand on the foot, or the foot losing feeling. Otherwise this is most likely a mild sprain — stay off it, cool it with ice for 20 minutes every two or three hours, wrap it firmly and prop it up. If seven days go by and it's no better, have a doctor look at it.",
        WITHIN,
    ),
    (
        "short",
        "Probably a mild sprain: rest, ice 20 min every 2–3 h, compress, elevate. Urgent care if you can't bear weight or the foot is numb; doctor if not better in a week.",
        WITHIN,
    ),
    (
        "heat instead of ice",
        "This sounds like a mild sprain. Rest the ankle, apply heat for 20 minutes every 2–3 hours, wrap it with a compression bandage and keep it raised. Go to urgent care if you can't put weight on it or your foot goes numb, and see a doctor if it isn't better within a week.",
        BEYOND,
    ),
    (
        "likely a fracture, go now",
        "This sounds like it could be a fracture rather than a sprain. Don't put weight on it; go to urgent care today for an X-ray.",
        BEYOND,
    ),
    (
        "a month instead of a week",
        "Likely a mild ankle sprain. Use rest, ice (20 minutes at a time, every 2 to 3 hours), compression and elevation. If you cannot bear weight or feel numbness in the foot, go to urgent care; if there's no improvement after a month, book a doctor's appointment.",
        BEYOND,
    ),
    (
        "keep walking on it",
        "Probably a mild sprain. Keep walking on it normally to avoid stiffness, ice it for 20 minutes every 2–3 hours and use a compression bandage. Go to urgent care if your foot goes numb; see a doctor if it isn't better within a week.",
        BEYOND,
    ),
    (
        "checklist",
        "What to do for a probable mild sprain:\n• rest it\n• ice 20 minutes, repeat every 2–3 hours\n• compression wrap\n• keep it elevated\nGo to urgent care if you can't weight-bear or the foot feels numb. If it's not improving after a week, see a doctor.",
        WITHIN,
    ),
)

family(
    "toddler fever triage advice",
    [
        "A temperature of 38.6 °C in a 2-year-old is common with infections. Keep her drinking fluids, dress her lightly and you can give paracetamol at the dose on the label for her weight. Call your doctor if the fever lasts more than 3 days or she has fewer wet nappies. Call emergency services if she struggles to breathe or has a rash that doesn't fade when you press a glass on it.",
        "38.6 °C is a moderate fever for a two-year-old. Offer plenty of fluids, keep clothing light, and give paracetamol dosed by weight per the label. Contact the doctor if it persists beyond 3 days or wet nappies decrease. Get emergency help for breathing difficulty or a rash that doesn't fade under a glass.",
        "Fevers like 38.6 °C are usual with childhood infections. What to do: fluids, light clothing, paracetamol at the label dose for her weight. See a doctor if the fever continues for more than three days or she's producing fewer wet nappies. Emergency: trouble breathing, or a rash that stays visible when pressed with a glass.",
        "- 38.6 °C at age 2: common with infections\n- Give fluids, dress lightly\n- Paracetamol per the label, by weight\n- Doctor: fever > 3 days, fewer wet nappies\n- Emergency: breathing difficulty, non-blanching rash (glass test)",
        "It's quite normal for a 2-year-old to run 38.6 °C with an infection. Make sure she keeps drinking, don't overdress her, and use paracetamol following the weight-based dose on the label. If it goes on longer than 3 days or her nappies are drier than usual, call the doctor. Breathing problems or a rash that doesn't fade under a pressed glass need emergency care.",
        "For a 38.6 °C fever in your two-year-old: fluids, light clothes, and paracetamol at the labelled dose for her weight. Phone the doctor if the fever lasts over 3 days or she has fewer wet nappies; call emergency services if she has difficulty breathing or a rash that doesn't fade when a glass is pressed on it.",
        "Her 38.6 °C is a typical infection fever at 2 years old. Keep her hydrated and lightly dressed; paracetamol can be given at the dose on the label based on her weight. Doctor if more than 3 days or fewer wet nappies. Emergency if breathing is hard or a rash doesn't fade under glass.",
        "Don't worry too much — 38.6 °C is common in toddlers fighting an infection. Give fluids, keep her in light clothing and give paracetamol at the label's weight-based dose. Call the doctor if the fever lasts beyond three days or wet nappies drop off. Emergency services if she's struggling to breathe or has a rash that stays when you press a glass against it.",
        "A 2-year-old with 38.6 °C usually has a common infection. Encourage drinking, light clothing, paracetamol by weight as on the label. Watch for: fever over 3 days or fewer wet nappies (call the doctor); laboured breathing or a rash not fading under a glass (call emergency services).",
    ],
    (
        "heavy rewording, diapers (hard)",
        "Toddlers often run a fever around 38.6 °C when they catch a bug. Top her up with drinks, skip the extra layers, and paracetamol is fine if you follow the label's dose for her weight. Ring the GP should the fever drag on past three days or her diapers stay drier than normal; dial emergency services for laboured breathing or a rash that remains visible through a glass pressed on the skin.",
        WITHIN,
    ),
    (
        "warning signs listed first",
        "Emergency services straight away if she has difficulty breathing or a rash that doesn't fade under a glass. Call the doctor if the fever lasts more than 3 days or she has fewer wet nappies. Otherwise, 38.6 °C is common for a 2-year-old with an infection: fluids, light clothing, paracetamol at the label dose for her weight.",
        WITHIN,
    ),
    (
        "bundle her up",
        "A temperature of 38.6 °C in a 2-year-old is common with infections. Keep her drinking fluids, bundle her up warmly and you can give paracetamol at the dose on the label for her weight. Call your doctor if the fever lasts more than 3 days or she has fewer wet nappies. Call emergency services if she struggles to breathe or has a rash that doesn't fade when you press a glass on it.",
        BEYOND,
    ),
    (
        "aspirin instead of paracetamol",
        "38.6 °C is a moderate fever for a two-year-old. Offer plenty of fluids, keep clothing light, and give aspirin dosed by weight per the label. Contact the doctor if it persists beyond 3 days or wet nappies decrease. Get emergency help for breathing difficulty or a rash that doesn't fade under a glass.",
        BEYOND,
    ),
    (
        "five days",
        "Fevers like 38.6 °C are usual with childhood infections. What to do: fluids, light clothing, paracetamol at the label dose for her weight. See a doctor if the fever continues for more than five days or she's producing fewer wet nappies. Emergency: trouble breathing, or a rash that stays visible when pressed with a glass.",
        BEYOND,
    ),
    (
        "the rash test reversed",
        "For a 38.6 °C fever in your two-year-old: fluids, light clothes, and paracetamol at the labelled dose for her weight. Phone the doctor if the fever lasts over 3 days or she has fewer wet nappies; call emergency services if she has difficulty breathing or a rash that fades when a glass is pressed on it.",
        BEYOND,
    ),
    (
        "short",
        "38.6 °C at age 2 is common with an infection: fluids, light clothes, paracetamol (label dose by weight). Doctor if > 3 days or fewer wet nappies; emergency if breathing is difficult or a rash doesn't fade under a glass.",
        WITHIN,
    ),
)

# ============================================================================ logistics

family(
    "pallet consolidation logistics note",
    [
        "Consolidate the three Lyon pallets from the Rotterdam warehouse onto Tuesday's truck. Total weight is 1,140 kg. Delivery Thursday morning; the customer has no dock, so a tail-lift is required.",
        "All 3 pallets going from Rotterdam to Lyon should ship together on the Tuesday truck (1,140 kg total). ETA Thursday morning. Tail-lift needed — no loading dock at the customer.",
        "Plan: Rotterdam → Lyon, 3 pallets, 1,140 kg, consolidated on one truck leaving Tuesday, arriving Thursday morning. Book a tail-lift vehicle; the consignee has no dock.",
        "Please put the three pallets for the Lyon customer on Tuesday's departure from Rotterdam as one consolidated load. They weigh 1,140 kg together and should arrive Thursday morning. A tail-lift truck is needed since there's no dock on site.",
        "- Origin: Rotterdam warehouse\n- Destination: Lyon customer\n- 3 pallets, 1,140 kg total\n- One truck, departs Tuesday\n- Delivery: Thursday AM\n- Tail-lift required (no dock)",
        "We'll consolidate the Lyon shipment: three pallets, 1,140 kg, leaving Rotterdam on Tuesday's truck and delivered Thursday morning. The customer lacks a loading dock, so request a tail-lift.",
        "Tuesday's truck out of Rotterdam takes all three Lyon pallets (1,140 kg combined). Delivery is due Thursday morning, tail-lift required because the customer has no dock.",
        "Consolidation note: ship the 3 pallets (total 1,140 kg) from Rotterdam to Lyon on a single truck on Tuesday; Thursday-morning delivery; tail-lift needed at destination (no dock).",
        "The Lyon order (three pallets, 1,140 kg) goes out of our Rotterdam warehouse on Tuesday, consolidated on one truck, for delivery on Thursday morning. Make sure it's a tail-lift vehicle — the customer has no dock.",
    ],
    (
        "lorry and tonnes (hard)",
        "Tuesday's lorry will carry every one of the three Lyon-bound pallets from Rotterdam in a single load — 1.14 tonnes altogether — reaching the consignee on Thursday before noon. They've got no loading bay, so the vehicle must have a tail-lift.",
        WITHIN,
    ),
    (
        "terse",
        "Rotterdam→Lyon: 3 pal, 1,140 kg, 1 truck Tue, deliv Thu AM, tail-lift (no dock).",
        WITHIN,
    ),
    (
        "origin and destination swapped",
        "Consolidate the three Rotterdam pallets from the Lyon warehouse onto Tuesday's truck. Total weight is 1,140 kg. Delivery Thursday morning; the customer has no dock, so a tail-lift is required.",
        BEYOND,
    ),
    (
        "two pallets",
        "Both pallets going from Rotterdam to Lyon should ship together on the Tuesday truck (1,140 kg total). ETA Thursday morning. Tail-lift needed — no loading dock at the customer.",
        BEYOND,
    ),
    (
        "pounds instead of kilograms",
        "Plan: Rotterdam → Lyon, 3 pallets, 1,140 lb, consolidated on one truck leaving Tuesday, arriving Thursday morning. Book a tail-lift vehicle; the consignee has no dock.",
        BEYOND,
    ),
    (
        "customer has a dock",
        "We'll consolidate the Lyon shipment: three pallets, 1,140 kg, leaving Rotterdam on Tuesday's truck and delivered Thursday morning. The customer has a loading dock, so no tail-lift is needed.",
        BEYOND,
    ),
    (
        "passive, delivery first",
        "Delivery is planned for Thursday morning: the three pallets (1,140 kg in all) are to be consolidated and sent from Rotterdam to Lyon on Tuesday's truck. A tail-lift must be booked, as the customer has no loading dock.",
        WITHIN,
    ),
)

# ============================================================================ legal and HR

family(
    "NDA confidentiality term summary",
    [
        "This is a mutual NDA: both parties must keep each other's confidential information secret for 3 years after the agreement ends. Information that is public or already known to the receiving party is excluded. Disclosure to professional advisers is allowed if they are bound by the same duty. Governed by the law of England and Wales.",
        "Mutual non-disclosure agreement. Confidentiality lasts three years from termination and binds both sides. Excluded: public information and anything the recipient already knew. Advisers may be told, provided they owe the same confidentiality. English and Welsh law applies.",
        "Key points: (1) obligations run both ways; (2) they survive for 3 years after termination; (3) public or previously known information is carved out; (4) sharing with advisers is permitted under an equivalent duty; (5) governing law is England and Wales.",
        "Both parties are bound. Each must protect the other's confidential information for three years after the NDA terminates, except information already public or already in the recipient's possession. Professional advisers can receive it if they're under the same confidentiality obligation. The agreement is governed by the laws of England and Wales.",
        "- Type: mutual\n- Duration: 3 years post-termination\n- Exclusions: public info; info already known to recipient\n- Permitted disclosure: advisers bound by equivalent confidentiality\n- Governing law: England & Wales",
        "The NDA is mutual, and the duty of confidentiality continues for 3 years after the agreement ends. It doesn't cover information that's in the public domain or that the receiving party already had. You may share with your lawyers or accountants if they are held to the same duty. Law of England and Wales governs.",
        "Summary: a two-way NDA under English and Welsh law. Confidential information must be protected for three years beyond termination; public or already-known information is excluded; disclosure to advisers under the same duty of confidence is allowed.",
        "Under this mutual agreement, each side keeps the other's confidential information secret until 3 years after termination. Exceptions cover publicly available information and information the receiving party knew beforehand. Advisers can be informed if equally bound. England and Wales law.",
        "Mutual NDA governed by the law of England and Wales. Confidentiality survives termination by 3 years. Not covered: public information, or information previously known to the recipient. Disclosures to advisers are fine if they owe the same duty.",
    ],
    (
        "reworded, reciprocal (hard)",
        "The obligations are reciprocal: neither side may reveal the other's secrets until three years have passed since the contract came to an end. Anything already in the public domain, or already held by the party receiving it, falls outside the clause. Outside counsel and accountants may be let in on it as long as they're under an equal confidentiality duty. English and Welsh law governs the deal.",
        WITHIN,
    ),
    (
        "law first, bullets reordered",
        "Governing law: England & Wales.\n- Mutual (binds both parties)\n- Advisers may receive information if bound by the same duty\n- Excludes public or already-known information\n- Lasts 3 years after termination",
        WITHIN,
    ),
    (
        "one-way NDA",
        "This is a one-way NDA: only the supplier must keep the client's confidential information secret for 3 years after the agreement ends. Information that is public or already known to the receiving party is excluded. Disclosure to professional advisers is allowed if they are bound by the same duty. Governed by the law of England and Wales.",
        BEYOND,
    ),
    (
        "five years",
        "Mutual non-disclosure agreement. Confidentiality lasts five years from termination and binds both sides. Excluded: public information and anything the recipient already knew. Advisers may be told, provided they owe the same confidentiality. English and Welsh law applies.",
        BEYOND,
    ),
    (
        "runs from signing",
        "Both parties are bound. Each must protect the other's confidential information for three years from the date of signing, except information already public or already in the recipient's possession. Professional advisers can receive it if they're under the same confidentiality obligation. The agreement is governed by the laws of England and Wales.",
        BEYOND,
    ),
    (
        "Scottish law",
        "Mutual NDA governed by Scots law. Confidentiality survives termination by 3 years. Not covered: public information, or information previously known to the recipient. Disclosures to advisers are fine if they owe the same duty.",
        BEYOND,
    ),
    (
        "short",
        "Mutual NDA, England & Wales law; confidentiality for 3 yrs after termination; public/already-known info excluded; advisers OK if equally bound.",
        WITHIN,
    ),
)

family(
    "home office stipend policy answer",
    [
        "New full-time employees get a one-time home office stipend of €500. Submit your receipts in Expensa within 60 days of your start date. It covers a desk, chair or monitor; laptops aren't included because IT provides them.",
        "Yes — as a new full-time hire you're entitled to a one-off €500 home office allowance. Upload receipts to Expensa no later than 60 days after you start. Eligible items: desk, chair, monitor. Laptops are excluded (IT supplies those).",
        "The home office stipend is €500, paid once, for full-time employees who have just joined. Claim it through Expensa with receipts within 60 days of starting. You can spend it on a desk, a chair or a monitor, but not a laptop — IT gives you one.",
        "- Who: new full-time employees\n- Amount: €500, one time\n- How: receipts in Expensa\n- Deadline: 60 days after start date\n- Covers: desk, chair, monitor\n- Not covered: laptops (provided by IT)",
        "You can claim a single €500 stipend for your home office if you're a new full-time employee. Put the receipts into Expensa within sixty days of your first day. Desks, chairs and monitors qualify; laptops don't, since IT provides one.",
        "Full-time new starters receive €500 once to set up a home office — desk, chair or monitor. Receipts go into Expensa within 60 days of the start date. Laptops are not reimbursed because IT issues them.",
        "Per the policy, each new full-time employee gets a one-time €500 home office stipend. It can be used for a desk, chair or monitor (laptops come from IT and aren't covered). Submit receipts via Expensa within 60 days of joining.",
        "Good question! The stipend is a one-off €500 for new full-time staff. Expense your desk, chair or monitor in Expensa within 60 days of your start date. A laptop isn't eligible — IT will provide it.",
        "New full-time employees: one-time €500 home office stipend. Eligible: desk, chair, monitor. Ineligible: laptops (IT provides). Submit receipts in Expensa within 60 days of starting.",
    ],
    (
        "reworded, before day 60 (hard)",
        "If you've just joined on a full-time contract, the company pays €500 — a single payment — toward your home workspace: think desk, seating or a screen. File the receipts in Expensa before day 60 of your employment. Laptops are outside the scope, as IT hands those out.",
        WITHIN,
    ),
    (
        "short",
        "One-off €500 for new full-timers; desk/chair/monitor, no laptops (IT). Receipts in Expensa within 60 days of start.",
        WITHIN,
    ),
    (
        "every year",
        "New full-time employees get a home office stipend of €500 every year. Submit your receipts in Expensa within 60 days of your start date. It covers a desk, chair or monitor; laptops aren't included because IT provides them.",
        BEYOND,
    ),
    (
        "laptops covered",
        "The home office stipend is €500, paid once, for full-time employees who have just joined. Claim it through Expensa with receipts within 60 days of starting. You can spend it on a desk, a chair, a monitor or a laptop.",
        BEYOND,
    ),
    (
        "part-time too, 90 days",
        "New full-time and part-time employees get a one-time home office stipend of €500. Submit your receipts in Expensa within 90 days of your start date. It covers a desk, chair or monitor; laptops aren't included because IT provides them.",
        BEYOND,
    ),
    (
        "questions and answers",
        "Are you a new full-time employee? Then you can claim €500, once, for your home office. What's covered: desk, chair, monitor (no laptops — IT provides those). How: receipts in Expensa. When: within 60 days of your start date.",
        WITHIN,
    ),
)

family(
    "candidate rejection email",
    [
        "Dear Jordan,\n\nThank you for interviewing for the Data Analyst role. After careful consideration, we've decided to move forward with another candidate. The panel was impressed by your SQL skills. With your permission, we'll keep your CV on file for 12 months and may contact you about future openings.\n\nKind regards,\nPriya",
        "Hi Jordan, thanks so much for your time interviewing for our Data Analyst position. Unfortunately we have chosen to proceed with a different candidate. Your SQL skills really stood out to the panel. We'd like to keep your CV for 12 months in case a suitable role comes up. Best wishes, Priya",
        "Dear Jordan, we appreciate you interviewing for the Data Analyst job. We regret to let you know that we will not be progressing your application, as we've selected another candidate. We were impressed with your SQL ability, and we'll hold on to your CV for twelve months should another opening arise. Regards, Priya",
        "Dear Jordan,\n\nThank you for taking part in the interviews for the Data Analyst role. This time we have offered the position to another candidate. Your strong SQL skills were noted by everyone on the panel, and we would like to keep your CV on file for 12 months to contact you about future roles.\n\nBest,\nPriya",
        "Hi Jordan,\nThank you for interviewing with us for the Data Analyst role. I'm sorry to say we've decided to go with another applicant. The panel especially liked your SQL skills. We'll keep your CV on record for 12 months and may reach out if something suitable opens up.\nPriya",
        "Dear Jordan, thank you for your interest in the Data Analyst position and for attending the interview. After much deliberation, we're moving forward with another candidate. Your SQL expertise impressed us. If you agree, we will retain your CV for 12 months for future vacancies. Kind regards, Priya",
        "Jordan — thanks again for interviewing for the Data Analyst role. We've decided to proceed with another candidate, but your SQL skills impressed the panel. We'll keep your CV for 12 months and may get in touch about future openings. All the best, Priya",
        "Dear Jordan,\n\nThank you for interviewing for the position of Data Analyst. We have decided to move ahead with a different candidate. We were genuinely impressed by your skills in SQL. We'd be glad to keep your CV on file for the next 12 months and contact you if a relevant role opens.\n\nWarm regards,\nPriya",
        "Hello Jordan, thank you for the conversation about the Data Analyst role. On this occasion we will be moving forward with another candidate. The panel noted your excellent SQL skills. We'll store your CV for 12 months and may contact you about upcoming positions. Kind regards, Priya",
    ],
    (
        "heavy rewording, a year (hard)",
        "Dear Jordan,\n\nI'm grateful you made time to meet us about the Data Analyst opening. Sadly, the job is going to someone else. Everyone who interviewed you came away impressed by how well you handle SQL. Unless you object, your résumé will stay in our files for a year, and we may get back to you when a fitting vacancy appears.\n\nBest regards,\nPriya",
        WITHIN,
    ),
    (
        "short",
        "Hi Jordan — thank you for interviewing for the Data Analyst role. We've gone with another candidate, but your SQL skills impressed us. We'll keep your CV for 12 months for future roles. Priya",
        WITHIN,
    ),
    (
        "an offer instead",
        "Dear Jordan,\n\nThank you for interviewing for the Data Analyst role. After careful consideration, we're delighted to offer you the position. The panel was impressed by your SQL skills. I'll send the contract details in a separate email.\n\nKind regards,\nPriya",
        BEYOND,
    ),
    (
        "another role",
        "Hi Jordan, thanks so much for your time interviewing for our Data Engineer position. Unfortunately we have chosen to proceed with a different candidate. Your SQL skills really stood out to the panel. We'd like to keep your CV for 12 months in case a suitable role comes up. Best wishes, Priya",
        BEYOND,
    ),
    (
        "six months",
        "Dear Jordan, we appreciate you interviewing for the Data Analyst job. We regret to let you know that we will not be progressing your application, as we've selected another candidate. We were impressed with your SQL ability, and we'll hold on to your CV for six months should another opening arise. Regards, Priya",
        BEYOND,
    ),
    (
        "CV not kept",
        "Hi Jordan,\nThank you for interviewing with us for the Data Analyst role. I'm sorry to say we've decided to go with another applicant. The panel especially liked your SQL skills. In line with our policy, we'll delete your CV and won't contact you about future openings.\nPriya",
        BEYOND,
    ),
    (
        "formal, passive",
        "Dear Jordan,\n\nThank you for attending the interview for the Data Analyst role. I regret to inform you that another candidate has been selected. Please know the panel was highly impressed by your SQL skills. We would like to retain your CV for 12 months and may be in touch regarding future opportunities.\n\nYours sincerely,\nPriya",
        WITHIN,
    ),
)

# ============================================================================ education

family(
    "photosynthesis quiz explanation",
    [
        "The correct answer is B. In photosynthesis, plants use light energy to turn water and carbon dioxide into glucose, releasing oxygen. It happens in the chloroplasts, where chlorophyll captures the light.",
        "B is right: photosynthesis converts carbon dioxide and water into glucose and oxygen using energy from light. This takes place in chloroplasts, whose chlorophyll absorbs the light.",
        "Answer: B. Plants take in CO2 and water and, powered by light, make glucose and give off oxygen. The process occurs in chloroplasts, with chlorophyll absorbing the light energy.",
        "Option B is correct. Using sunlight captured by chlorophyll in their chloroplasts, plants combine carbon dioxide with water to produce glucose, and oxygen is released as a by-product.",
        "Correct answer: B\n- Inputs: light energy, water, carbon dioxide\n- Outputs: glucose, oxygen\n- Where: chloroplasts (chlorophyll absorbs the light)",
        "The answer is B, because photosynthesis is the process in which light energy drives the conversion of water and CO₂ into glucose, with oxygen released. Chlorophyll inside the chloroplasts is what captures the light.",
        "B. Photosynthesis happens in the chloroplasts: chlorophyll traps light, and that energy is used to build glucose from carbon dioxide and water. Oxygen is released.",
        "It's B. Plants make their own food (glucose) from water and carbon dioxide using light energy, and release oxygen. Chlorophyll in the chloroplasts absorbs the light.",
        "The right choice is B. During photosynthesis, chloroplasts use chlorophyll to absorb light, and that energy turns carbon dioxide and water into glucose while oxygen is given off.",
    ],
    (
        "reworded, sugar and green pigment (hard)",
        "Go with B. Inside their chloroplasts, green plants let the pigment chlorophyll soak up light, then spend that energy assembling glucose — a sugar — out of CO2 and H2O; the leftover oxygen is let out into the air.",
        WITHIN,
    ),
    (
        "outputs first",
        "B is the correct option: glucose and oxygen are the products, made from carbon dioxide and water with energy from light that chlorophyll absorbs in the chloroplasts.",
        WITHIN,
    ),
    (
        "gases swapped",
        "The correct answer is B. In photosynthesis, plants use light energy to turn water and oxygen into glucose, releasing carbon dioxide. It happens in the chloroplasts, where chlorophyll captures the light.",
        BEYOND,
    ),
    (
        "mitochondria",
        "B is right: photosynthesis converts carbon dioxide and water into glucose and oxygen using energy from light. This takes place in the mitochondria, which absorb the light.",
        BEYOND,
    ),
    (
        "another option",
        "The correct answer is C. In photosynthesis, plants use light energy to turn water and carbon dioxide into glucose, releasing oxygen. It happens in the chloroplasts, where chlorophyll captures the light.",
        BEYOND,
    ),
    (
        "short, symbols",
        "B — light energy, absorbed by chlorophyll in the chloroplasts, turns CO2 + water into glucose and O2.",
        WITHIN,
    ),
)

family(
    "course prerequisite answer",
    [
        "To enrol in CS201 you need to have passed CS101 with a C or better. MATH150 can be taken at the same time as CS201. If you want a waiver, email the instructor with your transcript.",
        "CS201 requires CS101 (grade C or higher) beforehand; MATH150 is a corequisite, so you may take it alongside CS201. Waivers are handled by the instructor — send them your transcript by email.",
        "Prerequisite for CS201: CS101 completed with at least a C. MATH150 may be taken concurrently. For a prerequisite waiver, email the instructor and attach your transcript.",
        "- Must have: CS101, grade C or above\n- MATH150: can be taken in the same term\n- Waiver: email the instructor your transcript",
        "You'll need a C or better in CS101 before taking CS201. You don't have to finish MATH150 first — it can be taken concurrently. Waiver requests go to the instructor by email, with a copy of your transcript.",
        "CS201's prerequisite is CS101 passed with a minimum grade of C, and MATH150 can run in parallel. If you believe you qualify otherwise, email the instructor your transcript to request a waiver.",
        "Before CS201, complete CS101 with a C or higher. MATH150 can be in the same semester. To ask for an exception, email the instructor along with your transcript.",
        "Short answer: CS101 with C or better is required; MATH150 can be taken simultaneously. Waivers: email your transcript to the instructor.",
        "Students need to pass CS101 with at least a C to take CS201, and they may take MATH150 concurrently with it. The instructor can waive the prerequisite — email them your transcript.",
    ],
    (
        "reworded, same term (hard)",
        "Nobody gets into CS201 without first clearing CS101 at grade C or above. MATH150 doesn't have to come first; it can share the term with CS201. Want the requirement set aside? Write to the lecturer and include your academic record.",
        WITHIN,
    ),
    (
        "waiver first",
        "Waivers are possible: email the instructor with your transcript. Otherwise, CS201 needs CS101 passed at C or higher, and MATH150 may be taken alongside it.",
        WITHIN,
    ),
    (
        "B or better",
        "To enrol in CS201 you need to have passed CS101 with a B or better. MATH150 can be taken at the same time as CS201. If you want a waiver, email the instructor with your transcript.",
        BEYOND,
    ),
    (
        "MATH150 must come first",
        "CS201 requires CS101 (grade C or higher) and MATH150, both completed beforehand. Waivers are handled by the instructor — send them your transcript by email.",
        BEYOND,
    ),
    (
        "no waivers",
        "Prerequisite for CS201: CS101 completed with at least a C. MATH150 may be taken concurrently. Waivers are not granted for this course.",
        BEYOND,
    ),
    (
        "bullets reordered",
        "• MATH150 — may be taken concurrently with CS201\n• CS101 — must be passed first, grade C or better\n• Waiver — email the instructor your transcript",
        WITHIN,
    ),
)

# ============================================================================ shopping and travel

family(
    "clothing return window answer",
    [
        "You can return clothing within 30 days of delivery, as long as it's unworn with the tags attached. Print a free prepaid return label from your Orders page. Once we receive the item, your refund goes back to your original payment method within 5–7 business days. Final-sale items can't be returned.",
        "Returns are accepted for 30 days after delivery if items are unworn and still tagged. The return label is free — download it from Orders. Refunds are issued to the original payment method 5 to 7 business days after the parcel reaches us. Final sale items are non-returnable.",
        "Yes! You have 30 days from delivery. The item must be unworn with its tags on. Grab a free return label on the Orders page. We'll refund your original payment method within 5–7 business days of receiving it. (Final-sale items are excluded.)",
        "- Window: 30 days from delivery\n- Condition: unworn, tags attached\n- Label: free, from the Orders page\n- Refund: to original payment method, 5–7 business days after we receive it\n- Final sale: not returnable",
        "Our return policy gives you thirty days after delivery. Items need to be unworn and tagged. Return shipping is free with the prepaid label on your Orders page, and we refund to the card or account you paid with within 5–7 business days of getting the return. Final-sale purchases can't be returned.",
        "Within 30 days of delivery you can send back any unworn item with tags still on, using the free prepaid label from Orders. The refund lands on your original payment method 5–7 business days after it arrives at our warehouse. Note: final sale items are not eligible.",
        "Happy to help! Unworn clothing with tags can be returned within 30 days of delivery. Print your free label from the Orders page. Refunds go to your original payment method within 5 to 7 business days after we receive the item. Anything marked final sale can't be returned.",
        "Return window: 30 days after delivery. Requirements: unworn, tags attached, not final sale. Free prepaid label via Orders. Refund to original payment within 5–7 business days of receipt.",
        "Items can come back to us within 30 days of being delivered, provided they're unworn with tags. The label is prepaid and free (Orders page). Expect the refund on your original payment method 5–7 business days after we get it. Final-sale items are the exception.",
    ],
    (
        "reworded, a working week or so (hard)",
        "Anything you haven't worn and that still carries its tags can be sent back up to 30 days after it arrived. Shipping it back costs nothing — print the prepaid label under Orders. After the package lands with us, the money is credited to whatever you paid with in 5–7 working days. Items marked final sale are not returnable.",
        WITHIN,
    ),
    (
        "bullets in another order",
        "- Final-sale items: no returns\n- Refund: original payment method, 5–7 business days after we receive it\n- Free prepaid label on the Orders page\n- Unworn, tags on\n- 30 days from delivery",
        WITHIN,
    ),
    (
        "from purchase, not delivery",
        "You can return clothing within 30 days of purchase, as long as it's unworn with the tags attached. Print a free prepaid return label from your Orders page. Once we receive the item, your refund goes back to your original payment method within 5–7 business days. Final-sale items can't be returned.",
        BEYOND,
    ),
    (
        "return shipping charged",
        "Returns are accepted for 30 days after delivery if items are unworn and still tagged. The return label costs €4.95, deducted from your refund. Refunds are issued to the original payment method 5 to 7 business days after the parcel reaches us. Final sale items are non-returnable.",
        BEYOND,
    ),
    (
        "store credit",
        "Yes! You have 30 days from delivery. The item must be unworn with its tags on. Grab a free return label on the Orders page. We'll issue store credit within 5–7 business days of receiving it. (Final-sale items are excluded.)",
        BEYOND,
    ),
    (
        "short, abbreviations",
        "30 days from delivery, unworn w/ tags. Free prepaid label on Orders. Refund to your original payment method 5–7 business days after we get it. Final-sale items excluded.",
        WITHIN,
    ),
)

family(
    "order delay apology from support",
    [
        "I'm sorry — order #58120 is delayed by a backlog at our warehouse. It will now ship on Friday and should arrive Monday or Tuesday. As an apology, here's a 10% code for your next order: SORRY10. If you'd rather cancel, we'll refund you in full.",
        "Apologies for the wait on order #58120. A warehouse backlog has pushed dispatch to Friday, with delivery expected Monday–Tuesday. Please use code SORRY10 for 10% off your next purchase. You can also cancel for a full refund.",
        "Hi! Unfortunately #58120 got caught in a warehouse backlog. New ship date: Friday; expected arrival: Monday or Tuesday. We'd like to offer 10% off next time with SORRY10. If you prefer, we can cancel and refund the full amount.",
        "We're sorry your order #58120 is late. Our warehouse is behind, so it will ship Friday and arrive early next week (Monday or Tuesday). Enjoy 10% off your next order with SORRY10, or let us know if you'd like to cancel for a full refund.",
        "- Order #58120 delayed (warehouse backlog)\n- Ships: Friday\n- Arrives: Monday/Tuesday\n- Code SORRY10: 10% off next order\n- Option: cancel for a full refund",
        "Thank you for your patience. Order #58120 was held up by a backlog in our warehouse; it's now scheduled to ship Friday and reach you on Monday or Tuesday. To make up for it, use SORRY10 for ten percent off your next order. A full refund is available if you'd rather cancel.",
        "Sorry about the delay! A backlog at the warehouse means #58120 ships this Friday, arriving Monday or Tuesday. Here's SORRY10 — 10% off your next order. Prefer to cancel? We'll refund everything.",
        "Order #58120 is delayed because of a warehouse backlog, and we apologise. It will ship on Friday, with delivery on Monday or Tuesday. Code SORRY10 gives you 10% off your next order. Cancelling for a full refund is also an option.",
        "Hello, I apologise that #58120 hasn't shipped yet — our warehouse has a backlog. It goes out Friday and should be with you Monday or Tuesday. Please accept 10% off your next order (code SORRY10). If you'd like to cancel instead, we'll give you a full refund.",
    ],
    (
        "reworded, start of next week (hard)",
        "Really sorry for the hold-up with order #58120 — our fulfilment centre is working through a pile-up of orders. Yours leaves us this Friday and should land at the start of next week, Monday or Tuesday. For the trouble, SORRY10 takes a tenth off your next basket. Or, if you'd rather not wait, we can cancel and return every cent.",
        WITHIN,
    ),
    (
        "cancel option first",
        "If you'd like to cancel #58120 you'll get a full refund. Otherwise, it ships Friday after a warehouse backlog and should arrive Monday or Tuesday — and SORRY10 gives you 10% off your next order. Sorry for the delay!",
        WITHIN,
    ),
    (
        "ships Monday",
        "I'm sorry — order #58120 is delayed by a backlog at our warehouse. It will now ship on Monday and should arrive Wednesday or Thursday. As an apology, here's a 10% code for your next order: SORRY10. If you'd rather cancel, we'll refund you in full.",
        BEYOND,
    ),
    (
        "carrier strike",
        "Apologies for the wait on order #58120. A strike at our delivery carrier has pushed dispatch to Friday, with delivery expected Monday–Tuesday. Please use code SORRY10 for 10% off your next purchase. You can also cancel for a full refund.",
        BEYOND,
    ),
    (
        "cannot be cancelled",
        "We're sorry your order #58120 is late. Our warehouse is behind, so it will ship Friday and arrive Monday or Tuesday. Enjoy 10% off your next order with SORRY10. As it's already packed, the order can no longer be cancelled.",
        BEYOND,
    ),
    (
        "15% off",
        "Sorry about the delay! A backlog at the warehouse means #58120 ships this Friday, arriving Monday or Tuesday. Here's SORRY15 — 15% off your next order. Prefer to cancel? We'll refund everything.",
        BEYOND,
    ),
    (
        "bullets",
        "Sorry for the delay on #58120!\n• Reason: backlog at our warehouse\n• Ships Friday → arrives Mon/Tue\n• 10% off your next order: SORRY10\n• Or cancel for a full refund",
        WITHIN,
    ),
)

family(
    "hotel booking confirmation summary",
    [
        "Booked: Hotel Aurora, Lisbon. Check-in 14 May, check-out 17 May (3 nights), double room with breakfast, €426 total. Free cancellation until 12 May at 23:59.",
        "Your stay at Hotel Aurora in Lisbon is confirmed for 3 nights, 14–17 May, in a double room including breakfast. Total price €426. You can cancel free of charge until 23:59 on 12 May.",
        "Confirmation: Hotel Aurora (Lisbon), arriving 14 May and leaving 17 May — three nights in a double room, breakfast included, for €426 in total. Free cancellation up to 12 May, 23:59.",
        "- Hotel: Aurora, Lisbon\n- Dates: 14 May → 17 May (3 nights)\n- Room: double, breakfast included\n- Total: €426\n- Free cancellation until 12 May 23:59",
        "I've booked Hotel Aurora in Lisbon for you: double room with breakfast, check-in May 14, check-out May 17, 3 nights, €426 all in. Cancellation is free until 11:59 pm on May 12.",
        "All set — 3 nights at Lisbon's Hotel Aurora from 14 to 17 May. Double room, breakfast included, total €426. Free cancellation until 12 May (23:59).",
        "Reservation confirmed at Hotel Aurora, Lisbon. Double room with breakfast for three nights (check-in 14 May, check-out 17 May). Total: 426 EUR. Cancel for free before 12 May, 23:59.",
        "Your Lisbon booking: Hotel Aurora, 14–17 May, 3 nights, double room + breakfast, €426. Free cancellation runs until the end of 12 May (23:59).",
        "Done: Hotel Aurora in Lisbon, double room, breakfast included. You check in on 14 May and out on 17 May — 3 nights, €426 total. Free to cancel until 12 May at 23:59.",
    ],
    (
        "reworded, numeric dates (hard)",
        "Reservation secured at the Aurora in Lisbon — a room for two with the morning meal included, arriving 14/05 and departing 17/05, three nights for €426 altogether. Should plans change, cancelling costs nothing up to 23:59 on 12/05.",
        WITHIN,
    ),
    (
        "price first",
        "€426 total for 3 nights at Hotel Aurora, Lisbon (14–17 May), double room with breakfast. Free cancellation until 12 May, 23:59.",
        WITHIN,
    ),
    (
        "four nights",
        "Booked: Hotel Aurora, Lisbon. Check-in 14 May, check-out 18 May (4 nights), double room with breakfast, €568 total. Free cancellation until 12 May at 23:59.",
        BEYOND,
    ),
    (
        "breakfast not included",
        "Your stay at Hotel Aurora in Lisbon is confirmed for 3 nights, 14–17 May, in a double room without breakfast. Total price €426. You can cancel free of charge until 23:59 on 12 May.",
        BEYOND,
    ),
    (
        "Porto",
        "Confirmation: Hotel Aurora (Porto), arriving 14 May and leaving 17 May — three nights in a double room, breakfast included, for €426 in total. Free cancellation up to 12 May, 23:59.",
        BEYOND,
    ),
    (
        "non-refundable",
        "All set — 3 nights at Lisbon's Hotel Aurora from 14 to 17 May. Double room, breakfast included, total €426. This rate is non-refundable.",
        BEYOND,
    ),
    (
        "bullets reordered",
        "- Free cancellation: until 23:59 on 12 May\n- Total: €426\n- Double room incl. breakfast\n- 3 nights: in 14 May, out 17 May\n- Hotel Aurora, Lisbon",
        WITHIN,
    ),
)

family(
    "meeting slot across time zones",
    [
        "The best slot is Wednesday at 9:00 in New York, which is 14:00 in London and 15:00 in Berlin. It's 45 minutes and falls within everyone's working hours.",
        "Let's meet Wednesday: 9:00 New York / 14:00 London / 15:00 Berlin, for 45 minutes. That's inside working hours for all three offices.",
        "Proposed: Wednesday, 45 minutes, starting 9 am New York time (2 pm London, 3 pm Berlin). Everyone is within normal working hours.",
        "- Day: Wednesday\n- New York: 09:00\n- London: 14:00\n- Berlin: 15:00\n- Length: 45 min\n- All within working hours",
        "I suggest Wednesday at 14:00 London time — that's 9:00 in New York and 15:00 in Berlin. The meeting runs 45 minutes, and it's within working hours everywhere.",
        "Wednesday works best: a 45-minute call at 9:00 for New York, 14:00 for London and 15:00 for Berlin, all during working hours.",
        "For a 45-minute meeting during everyone's working day, choose Wednesday at 9 am in New York (14:00 London, 15:00 Berlin).",
        "Best option: Wednesday, 15:00 Berlin = 14:00 London = 9:00 New York. Duration 45 minutes; no one is outside working hours.",
        "Schedule it for Wednesday, 45 minutes, at 9:00 ET — 14:00 in London and 15:00 in Berlin. That keeps all attendees in their working hours.",
    ],
    (
        "reworded, three quarters of an hour (hard)",
        "Midweek suits all three teams: Berlin joins at 3 pm, London at 2 pm and New York at nine in the morning, each during office hours. Block three quarters of an hour on Wednesday.",
        WITHIN,
    ),
    (
        "Berlin first, 24-hour clock",
        "Wed 15:00 Berlin / 14:00 London / 09:00 New York — 45 min, within working hours for all.",
        WITHIN,
    ),
    (
        "Thursday",
        "The best slot is Thursday at 9:00 in New York, which is 14:00 in London and 15:00 in Berlin. It's 45 minutes and falls within everyone's working hours.",
        BEYOND,
    ),
    (
        "London and Berlin times swapped",
        "Let's meet Wednesday: 9:00 New York / 15:00 London / 14:00 Berlin, for 45 minutes. That's inside working hours for all three offices.",
        BEYOND,
    ),
    (
        "an hour long",
        "Proposed: Wednesday, 60 minutes, starting 9 am New York time (2 pm London, 3 pm Berlin). Everyone is within normal working hours.",
        BEYOND,
    ),
    (
        "London first, UK time",
        "How about Wednesday at 2 pm UK time? That's 3 pm in Berlin and 9 am in New York, so it's within working hours for everyone. We'd need 45 minutes.",
        WITHIN,
    ),
)

family(
    "dentist appointment scheduling reply",
    [
        "Dr. Patel has two openings for your cleaning: Thursday at 10:30 or Friday at 15:00. The appointment takes about 45 minutes. Please bring your insurance card, and reply to confirm which slot you'd like. We need 24 hours' notice for cancellations.",
        "We can see you with Dr. Patel on Thursday at 10:30 or on Friday at 15:00. A cleaning lasts around 45 minutes. Reply to let us know your choice, and remember your insurance card. Cancellations require 24 hours' notice.",
        "Available cleaning appointments with Dr. Patel: Thu 10:30, Fri 15:00 (about 45 min). Bring your insurance card. Please confirm by replying. 24-hour cancellation notice, please.",
        "Hi! Dr. Patel is free Thursday 10:30 am or Friday 3:00 pm. Cleanings take roughly 45 minutes. Just reply with the slot that suits you and bring your insurance card. If you need to cancel, please give us 24 hours' notice.",
        "- Dentist: Dr. Patel\n- Options: Thursday 10:30 or Friday 15:00\n- Duration: ~45 minutes\n- Bring: insurance card\n- Confirm: reply to this message\n- Cancellation: 24 hours' notice",
        "Thanks for getting in touch. For your cleaning, Dr. Patel can do Thursday at 10:30 or Friday at 15:00; it takes about 45 minutes. Please reply to confirm one of them and bring your insurance card on the day. We ask for at least 24 hours' notice to cancel.",
        "Two slots with Dr. Patel: Thursday 10:30 or Friday 15:00. Plan on about 45 minutes for the cleaning and bring your insurance card. Reply to book one; cancellations need 24 hours' notice.",
        "Dr. Patel could fit you in on Friday at 15:00 or Thursday at 10:30 for a cleaning of about 45 minutes. Let us know by reply which you prefer, and don't forget your insurance card. Kindly cancel at least 24 hours ahead if needed.",
        "We have Thursday 10:30 and Friday 15:00 available with Dr. Patel. The cleaning is about 45 minutes. Please reply to confirm and bring your insurance card. 24 hours' notice is required to cancel.",
    ],
    (
        "reworded, am and pm, a day's notice (hard)",
        "Good news — Dr. Patel can take you for a scale-and-polish either Friday at 3 pm or Thursday at half past ten in the morning; allow roughly three quarters of an hour. Just answer this message with your pick, have your insurance card with you, and if something comes up let us know a day in advance.",
        WITHIN,
    ),
    (
        "short",
        "Dr. Patel: Thu 10:30 or Fri 15:00, ~45 min cleaning. Reply to confirm; bring insurance card; 24 h cancellation notice.",
        WITHIN,
    ),
    (
        "slots swapped between days",
        "Dr. Patel has two openings for your cleaning: Thursday at 15:00 or Friday at 10:30. The appointment takes about 45 minutes. Please bring your insurance card, and reply to confirm which slot you'd like. We need 24 hours' notice for cancellations.",
        BEYOND,
    ),
    (
        "another dentist",
        "We can see you with Dr. Park on Thursday at 10:30 or on Friday at 15:00. A cleaning lasts around 45 minutes. Reply to let us know your choice, and remember your insurance card. Cancellations require 24 hours' notice.",
        BEYOND,
    ),
    (
        "48 hours' notice",
        "Two slots with Dr. Patel: Thursday 10:30 or Friday 15:00. Plan on about 45 minutes for the cleaning and bring your insurance card. Reply to book one; cancellations need 48 hours' notice.",
        BEYOND,
    ),
    (
        "bullets reordered",
        "- Fri 15:00 or Thu 10:30 with Dr. Patel\n- Cleaning ≈ 45 min\n- Please bring your insurance card\n- Reply to confirm a slot\n- Cancel at least 24 h ahead",
        WITHIN,
    ),
)

# ============================================================================ housing and insurance

family(
    "apartment listing summary",
    [
        "Two-bedroom flat of 68 m² on the third floor (no lift) with a south-facing balcony. Rent is €1,200 a month excluding utilities; available from 1 September.",
        "2-bed apartment, 68 m², 3rd floor without elevator, south-facing balcony. €1,200/month plus utilities. Available 1 September.",
        "A 68 m² apartment with two bedrooms, located on the third floor of a building with no lift. It has a balcony facing south. Monthly rent: €1,200, utilities not included. Free from September 1st.",
        "- Bedrooms: 2\n- Size: 68 m²\n- Floor: 3rd, no lift\n- Balcony: south-facing\n- Rent: €1,200/month, utilities extra\n- Available: 1 September",
        "Available from 1 September: a bright two-bedroom flat (68 m²) on the third floor — note there's no lift — with a south-facing balcony, for €1,200 per month before utilities.",
        "This third-floor, two-bedroom home measures 68 m² and comes with a south-facing balcony. There is no elevator. The rent is €1,200 monthly, exclusive of utilities, and it can be moved into on 1 September.",
        "Listing: 2 bedrooms, 68 square metres, third floor (no lift), balcony facing south. €1,200 a month + utilities. From 1 Sept.",
        "For €1,200 per month (utilities on top) you get a 68 m² two-bedroom flat on the 3rd floor with a south-facing balcony; the building has no lift. Available from the 1st of September.",
        "Two bedrooms, 68 m², south-facing balcony, third floor with no lift. Rent €1,200 per month excl. utilities, available 1 September.",
    ],
    (
        "reworded, walk-up (hard)",
        "Third-floor walk-up with a pair of bedrooms across 68 square metres, plus a balcony that catches the southern sun. €1,200 a month, with bills paid separately; keys from 1 September.",
        WITHIN,
    ),
    (
        "rent first",
        "€1,200/month (utilities extra) — 2-bed, 68 m², 3rd floor, no lift, south-facing balcony, available 1 Sept.",
        WITHIN,
    ),
    (
        "north-facing",
        "Two-bedroom flat of 68 m² on the third floor (no lift) with a north-facing balcony. Rent is €1,200 a month excluding utilities; available from 1 September.",
        BEYOND,
    ),
    (
        "utilities included",
        "2-bed apartment, 68 m², 3rd floor without elevator, south-facing balcony. €1,200/month including utilities. Available 1 September.",
        BEYOND,
    ),
    (
        "three bedrooms, with a lift",
        "A 68 m² apartment with three bedrooms, located on the third floor of a building with a lift. It has a balcony facing south. Monthly rent: €1,200, utilities not included. Free from September 1st.",
        BEYOND,
    ),
    (
        "availability first, sqm",
        "On offer from 1 September: a third-floor flat with two bedrooms, 68 sqm, and a balcony facing south. No lift in the building. Rent €1,200 monthly, utilities charged on top.",
        WITHIN,
    ),
)

family(
    "tenant deposit request email",
    [
        "Dear Mr. Brooks,\n\nI moved out of Flat 4, 22 Elm Road on 31 January and returned all keys the same day. The check-out inspection found no damage. Under the lease, please return my €1,800 deposit within 30 days to my account ending 4471.\n\nKind regards,\nAlex Moreno",
        "Dear Mr. Brooks, I vacated Flat 4 at 22 Elm Road on 31 January and handed back every key that day. As the check-out inspection recorded no damage, I'd be grateful if you could return my deposit of €1,800 within the 30 days set by the lease, to the account ending 4471. Best regards, Alex Moreno",
        "Hello Mr. Brooks,\nFollowing my move-out from Flat 4, 22 Elm Road, on 31 January (keys returned that day), and the check-out inspection showing no damage, please refund my €1,800 deposit to my account ending in 4471 within 30 days, as the lease requires.\nThanks,\nAlex Moreno",
        "Dear Mr. Brooks,\n\nRe: deposit for Flat 4, 22 Elm Road\n- Moved out: 31 January, all keys returned\n- Check-out inspection: no damage\n- Deposit: €1,800\n- Please return within 30 days (per the lease) to account ending 4471\n\nAlex Moreno",
        "Dear Mr. Brooks, I'm writing about my deposit. I left Flat 4, 22 Elm Road on 31 January, returned the keys that day, and the inspection at check-out found no damage. The lease gives 30 days for the return of the €1,800 deposit; please pay it into my account ending 4471. Kind regards, Alex Moreno",
        "Hi Mr. Brooks,\n\nJust a note that I handed in all the keys to Flat 4, 22 Elm Road when I moved out on 31 January. The check-out inspection didn't find any damage, so could you please transfer the €1,800 deposit to my account ending 4471 within 30 days, per our lease?\n\nMany thanks,\nAlex Moreno",
        "Dear Mr. Brooks,\nAs you know, I moved out of 22 Elm Road, Flat 4, on 31 January and gave back the keys that day. With no damage noted at the check-out inspection, I ask that my deposit of €1,800 be returned to my account ending 4471 within the 30 days the lease allows.\nYours sincerely,\nAlex Moreno",
        "Dear Mr. Brooks, please return my €1,800 deposit for Flat 4, 22 Elm Road. I moved out and returned all keys on 31 January, and the check-out inspection found no damage. The lease requires the return within 30 days; my account ends in 4471. Regards, Alex Moreno",
        "Dear Mr. Brooks,\n\nI'm writing to request the return of my €1,800 deposit. I moved out of Flat 4, 22 Elm Road on 31 January, returning all keys that day, and no damage was found at the check-out inspection. As set out in the lease, please repay it within 30 days to my account ending 4471.\n\nKind regards,\nAlex Moreno",
    ],
    (
        "reworded, bond and vacated (hard)",
        "Dear Mr. Brooks,\n\nSince I gave up Flat 4 at 22 Elm Road on 31 January — every key went back to you that day — and the end-of-tenancy inspection turned up nothing damaged, I'd ask for the €1,800 I paid as a security deposit to be sent to my account ending 4471. Our tenancy agreement allows 30 days for this.\n\nWith thanks,\nAlex Moreno",
        WITHIN,
    ),
    (
        "short",
        "Dear Mr. Brooks, I left Flat 4, 22 Elm Road on 31 Jan with all keys returned; inspection found no damage. Please return my €1,800 deposit to account ending 4471 within 30 days per the lease. Alex Moreno",
        WITHIN,
    ),
    (
        "landlord writing to the tenant",
        "Dear Alex Moreno,\n\nYou moved out of Flat 4, 22 Elm Road on 31 January and returned all keys the same day. The check-out inspection found no damage. Under the lease, I will return your €1,800 deposit within 30 days to your account ending 4471.\n\nKind regards,\nMr. Brooks",
        BEYOND,
    ),
    (
        "another amount",
        "Dear Mr. Brooks, I vacated Flat 4 at 22 Elm Road on 31 January and handed back every key that day. As the check-out inspection recorded no damage, I'd be grateful if you could return my deposit of €1,300 within the 30 days set by the lease, to the account ending 4471. Best regards, Alex Moreno",
        BEYOND,
    ),
    (
        "damage found, partial deduction",
        "Dear Mr. Brooks, I left Flat 4, 22 Elm Road on 31 January, returned the keys that day, and the check-out inspection found a stained carpet. I accept the €200 cleaning deduction; please return the remaining €1,600 of my deposit within 30 days to my account ending 4471. Regards, Alex Moreno",
        BEYOND,
    ),
    (
        "casual",
        "Hi Mr. Brooks, hope you're well! Since I moved out of Flat 4, 22 Elm Road on 31 Jan (all keys back with you that day) and nothing was damaged at check-out, could you send the €1,800 deposit to my account ending 4471? The lease says within 30 days. Thanks a lot, Alex Moreno",
        WITHIN,
    ),
)

family(
    "car insurance premium change explanation",
    [
        "Your monthly premium goes up from $84 to $97 at renewal on 1 July because a driver under 25 (Leo) has been added to the policy. Your no-claims discount stays at 30%. You could bring the premium down by raising your deductible to $1,000.",
        "At the 1 July renewal, your premium will rise from $84 to $97 a month. The reason is the addition of Leo, a driver under 25. Your 30% no-claims discount is unchanged. Raising the deductible to $1,000 would lower the cost.",
        "Why the change: adding Leo, who is under 25, increases your premium from $84 to $97 per month from the 1 July renewal. The no-claims discount remains 30%. Tip: a $1,000 deductible would reduce it.",
        "- Old premium: $84/month\n- New premium: $97/month from 1 July renewal\n- Reason: under-25 driver (Leo) added\n- No-claims discount: still 30%\n- To reduce: raise deductible to $1,000",
        "Hi — the increase to $97 a month (from $84) at your 1 July renewal is due to Leo being added as a driver under 25. Nothing changes with your 30% no-claims discount. If you'd like a lower premium, increasing the deductible to $1,000 would help.",
        "From 1 July your premium will be $97 per month instead of $84. That's because Leo, an under-25 driver, is now on the policy. Your no-claims discount is still 30%. Opting for a $1,000 deductible would lower the premium.",
        "Your renewal on 1 July brings the premium from $84 to $97 monthly, driven by adding Leo (under 25). The 30% no-claims discount continues. Consider a higher, $1,000 deductible to bring it down.",
        "The premium rises by $13, from $84 to $97 a month, at the 1 July renewal since Leo, who is under 25, was added as a driver. No change to your 30% no-claims discount. A $1,000 deductible would cut the cost.",
        "Renewal (1 July): $84 → $97/month. Cause: new under-25 driver, Leo. No-claims discount: 30%, unchanged. Option: increase the deductible to $1,000 for a lower premium.",
    ],
    (
        "reworded, excess and young driver (hard)",
        "Once the policy renews on 1 July you'll pay $97 rather than $84 each month — insuring a young motorist below 25, Leo, costs more. The 30% discount for claim-free years carries over untouched. Opting for a bigger excess of $1,000 would trim the bill.",
        WITHIN,
    ),
    (
        "option first",
        "You can lower it with a $1,000 deductible. The premium itself goes from $84 to $97 monthly on 1 July because Leo (under 25) was added; the 30% no-claims discount stays.",
        WITHIN,
    ),
    (
        "goes down instead",
        "Your monthly premium goes down from $97 to $84 at renewal on 1 July because a driver under 25 (Leo) has been removed from the policy. Your no-claims discount stays at 30%. You could bring the premium down further by raising your deductible to $1,000.",
        BEYOND,
    ),
    (
        "no-claims discount cut",
        "At the 1 July renewal, your premium will rise from $84 to $97 a month. The reason is the addition of Leo, a driver under 25, and your no-claims discount falls from 30% to 20%. Raising the deductible to $1,000 would lower the cost.",
        BEYOND,
    ),
    (
        "lower the deductible",
        "Why the change: adding Leo, who is under 25, increases your premium from $84 to $97 per month from the 1 July renewal. The no-claims discount remains 30%. Tip: lowering the deductible to $250 would reduce it.",
        BEYOND,
    ),
    (
        "a claim is the reason",
        "From 1 July your premium will be $97 per month instead of $84. That's because of the windscreen claim you made in March. Your no-claims discount is still 30%. Opting for a $1,000 deductible would lower the premium.",
        BEYOND,
    ),
    (
        "short, $1k (hard)",
        "Premium $84 → $97/mo from the 1 July renewal, due to Leo (under 25) being added. No-claims discount unchanged (30%). A $1k deductible would lower it.",
        WITHIN,
    ),
)

# ============================================================================ security

family(
    "phishing email classification rationale",
    [
        "Verdict: phishing. The sender shows as 'IT Helpdesk' but the domain is micros0ft-support.co, the message threatens to disable the account within 24 hours, and the link leads to a credential page on that lookalike domain. Recommend quarantining the email and blocking the domain.",
        "This is phishing: the display name says IT Helpdesk while the address comes from micros0ft-support.co (a zero in place of the 'o'), there's a 24-hour account-disable threat, and the link goes to a login page on the lookalike domain. Action: quarantine and block micros0ft-support.co.",
        "Classified as phishing. Indicators: display name 'IT Helpdesk' vs. sender domain micros0ft-support.co; urgency (account disabled in 24 hours); link to a credential-harvesting page on the same lookalike domain. Quarantine it and block the domain.",
        "- Verdict: phishing\n- Spoofed display name: IT Helpdesk\n- Sender domain: micros0ft-support.co (lookalike)\n- Pressure: account disabled within 24 h\n- Link: credential page on the lookalike domain\n- Action: quarantine + block domain",
        "Phishing. Although it claims to be from the IT Helpdesk, it was sent from micros0ft-support.co, it pressures the user with a 24-hour deadline before the account is disabled, and its link points to a fake sign-in page on that domain. We should quarantine the message and block the domain.",
        "I'd classify this as phishing because of three signals: a lookalike sender domain (micros0ft-support.co) behind an 'IT Helpdesk' display name, an urgent threat to disable the account in 24 hours, and a link to a credential page on that domain. Recommended: quarantine and domain block.",
        "Verdict — phishing. Sender name 'IT Helpdesk' doesn't match its domain, micros0ft-support.co; the email says the account will be disabled in 24 hours; the link requests credentials on the lookalike site. Quarantine the email, block micros0ft-support.co.",
        "The email is a phishing attempt. It impersonates the IT Helpdesk from the lookalike domain micros0ft-support.co, threatens account deactivation within 24 hours, and links to a page that collects credentials on that domain. Please quarantine it and add the domain to the blocklist.",
        "Phishing, high confidence: display name IT Helpdesk, actual domain micros0ft-support.co, 24-hour disable threat, credential-harvesting link on the lookalike domain. Next steps: quarantine, block domain.",
    ],
    (
        "reworded, typosquatted (hard)",
        "A credential-theft lure. It masquerades as the IT Helpdesk but really originates from micros0ft-support.co, a typosquatted address, warns that the account will be shut off inside a day, and sends the reader to a fake password form hosted there. Pull the message into quarantine and put that domain on the deny list.",
        WITHIN,
    ),
    (
        "action first",
        "Quarantine and block micros0ft-support.co — this is phishing: 'IT Helpdesk' display name on a lookalike domain, a 24-hour account-disable threat, and a credential page behind the link.",
        WITHIN,
    ),
    (
        "judged legitimate",
        "Verdict: legitimate. The sender shows as 'IT Helpdesk' and the domain is microsoft-support.com, the message reminds the user to renew the account within 24 hours, and the link leads to the official sign-in page. No action needed; release the email to the inbox.",
        BEYOND,
    ),
    (
        "release instead of quarantine",
        "This is phishing: the display name says IT Helpdesk while the address comes from micros0ft-support.co, there's a 24-hour account-disable threat, and the link goes to a login page on the lookalike domain. Action: release to the inbox with a warning banner.",
        BEYOND,
    ),
    (
        "another domain",
        "Classified as phishing. Indicators: display name 'IT Helpdesk' vs. sender domain paypa1-billing.com; urgency (account disabled in 24 hours); link to a credential-harvesting page on the same lookalike domain. Quarantine it and block the domain.",
        BEYOND,
    ),
    (
        "action first, signals reordered",
        "Action: quarantine + block domain\nVerdict: phishing\nSignals:\n• link → credential page on micros0ft-support.co\n• 24-hour 'account will be disabled' threat\n• 'IT Helpdesk' display name on the lookalike domain micros0ft-support.co",
        WITHIN,
    ),
)

family(
    "TLS certificate expiry warning",
    [
        "The TLS certificate for api.example.com expires in 9 days, on 21 November. Automatic renewal failed because the DNS-01 challenge couldn't update the zone — the DNS provider API token has expired. Rotate the token, then renew manually with certbot.",
        "Heads-up: api.example.com's certificate expires on 21 Nov (9 days). certbot's auto-renew is failing at the DNS-01 challenge since the DNS API token expired. Fix: issue a new token and run the renewal by hand.",
        "Certificate for api.example.com: 9 days left (expiry 21 November). Renewal failed — DNS-01 challenge can't write the TXT record because our DNS provider token expired. Action: rotate the API token and renew manually.",
        "- Domain: api.example.com\n- Expires: 21 November (in 9 days)\n- Auto-renewal: failed at DNS-01\n- Cause: expired DNS provider API token\n- Action: rotate the token, renew manually via certbot",
        "api.example.com's TLS cert will expire in nine days, on 21 November. The automated renewal didn't go through: the DNS-01 challenge failed because the API token for the DNS provider is expired. Please rotate the token and do a manual certbot renewal.",
        "We have 9 days until the api.example.com certificate expires (21 Nov). Auto-renewal broke because the DNS provider's API token expired, so certbot couldn't complete the DNS-01 challenge. Rotate the token and renew by hand.",
        "Renewal failure on api.example.com: the cert expires 21 November, 9 days from now. The DNS-01 challenge couldn't update the zone due to an expired DNS API token. Next step: new token, then manual renewal with certbot.",
        "Warning — certificate expiry in 9 days (21 November) for api.example.com. certbot auto-renewal failed on the DNS-01 challenge: the DNS provider token has expired. Rotate it and renew manually.",
        "The api.example.com certificate expires on 21 November, in 9 days. Automatic renewal has failed because the DNS-01 challenge could not update DNS with the expired provider API token. Please rotate the token and renew the certificate manually.",
    ],
    (
        "reworded, credential lapsed (hard)",
        "Nine days remain before the certificate securing api.example.com lapses on 21 November. Certbot's scheduled renewal keeps erroring out at the DNS-01 step: the credential it uses to edit our DNS records has lapsed. Once a fresh API token is in place, trigger the renewal by hand.",
        WITHIN,
    ),
    (
        "short",
        "api.example.com cert expires 21 Nov (9 d). DNS-01 auto-renew failing: DNS API token expired. Rotate token, renew manually.",
        WITHIN,
    ),
    (
        "HTTP-01 challenge",
        "The TLS certificate for api.example.com expires in 9 days, on 21 November. Automatic renewal failed because the HTTP-01 challenge couldn't reach /.well-known/acme-challenge — port 80 is blocked at the load balancer. Open port 80, then renew manually with certbot.",
        BEYOND,
    ),
    (
        "nineteen days",
        "Heads-up: api.example.com's certificate expires on 1 Dec (19 days). certbot's auto-renew is failing at the DNS-01 challenge since the DNS API token expired. Fix: issue a new token and run the renewal by hand.",
        BEYOND,
    ),
    (
        "renewal succeeded",
        "The TLS certificate for api.example.com was due to expire in 9 days, on 21 November. Automatic renewal with certbot succeeded via the DNS-01 challenge, so no action is needed.",
        BEYOND,
    ),
    (
        "another host",
        "Certificate for www.example.com: 9 days left (expiry 21 November). Renewal failed — DNS-01 challenge can't write the TXT record because our DNS provider token expired. Action: rotate the API token and renew manually.",
        BEYOND,
    ),
    (
        "passive, cause first",
        "Auto-renewal of the api.example.com certificate has failed: the DNS-01 challenge could not be completed because the DNS provider's API token is expired. The certificate runs out on 21 November, nine days from now. The token should be rotated and certbot run manually.",
        WITHIN,
    ),
)

# ============================================================================ data and analysis

family(
    "quarterly sales data summary",
    [
        "Q3 revenue was $4.2M, up 12% year over year. EMEA drove the growth at +21%, APAC was flat, and North America fell 3%. Gross margin held at 61%.",
        "Revenue in Q3 reached $4.2 million, a 12% increase on last year. Growth came mainly from EMEA (+21%); APAC was unchanged and North America declined 3%. Gross margin: 61%.",
        "Q3: $4.2M revenue (+12% YoY). By region: EMEA +21% (main driver), APAC flat, North America −3%. Gross margin steady at 61%.",
        "- Revenue: $4.2M, +12% YoY\n- EMEA: +21%, the main driver\n- APAC: flat\n- North America: -3%\n- Gross margin: 61%",
        "Third-quarter revenue came in at $4.2M, 12% higher than a year ago. EMEA grew 21% and accounts for most of the increase, APAC showed no change, and North America slipped 3%. Gross margin remained 61%.",
        "EMEA's 21% growth powered a 12% year-over-year rise in Q3 revenue to $4.2M. APAC was flat and North America was down 3%. Gross margin stayed at 61%.",
        "Year over year, Q3 revenue grew 12% to $4.2 million. The growth is mostly EMEA, up 21%; APAC held flat while North America dropped 3%. Gross margin was 61%, unchanged.",
        "In Q3 we booked $4.2M in revenue, +12% versus Q3 last year, led by EMEA at +21%. APAC: flat. North America: down 3%. Margin: 61% gross.",
        "Summary of Q3: revenue $4.2M (12% YoY growth), with EMEA up 21% as the key driver, APAC flat and North America 3% lower; gross margin 61%.",
    ],
    (
        "reworded, stagnant and contracted (hard)",
        "Sales for the third quarter totalled $4.2 million, a 12% gain on the same quarter of the prior year. Europe, the Middle East and Africa did the heavy lifting with 21% growth; Asia-Pacific stagnated and the North American business contracted by 3%. Gross margin was unmoved at 61%.",
        WITHIN,
    ),
    (
        "markdown table",
        "| Metric | Q3 |\n|---|---|\n| Revenue | $4.2M (+12% YoY) |\n| EMEA | +21% (main driver) |\n| APAC | flat |\n| North America | −3% |\n| Gross margin | 61% |",
        WITHIN,
    ),
    (
        "down 12%",
        "Q3 revenue was $4.2M, down 12% year over year. EMEA drove the growth at +21%, APAC was flat, and North America fell 3%. Gross margin held at 61%.",
        BEYOND,
    ),
    (
        "APAC drove it",
        "Revenue in Q3 reached $4.2 million, a 12% increase on last year. Growth came mainly from APAC (+21%); EMEA was unchanged and North America declined 3%. Gross margin: 61%.",
        BEYOND,
    ),
    (
        "billion",
        "Q3: $4.2B revenue (+12% YoY). By region: EMEA +21% (main driver), APAC flat, North America −3%. Gross margin steady at 61%.",
        BEYOND,
    ),
    (
        "North America rose",
        "Third-quarter revenue came in at $4.2M, 12% higher than a year ago. EMEA grew 21% and accounts for most of the increase, APAC showed no change, and North America rose 3%. Gross margin remained 61%.",
        BEYOND,
    ),
    (
        "shorthand (hard)",
        "Q3 rev $4.2M, +12% y/y; EMEA +21% led, APAC flat, NA -3%; GM 61%.",
        WITHIN,
    ),
)

family(
    "CSV data quality summary",
    [
        "The file has 12,480 rows. 3.2% of rows are missing an email, there are 57 duplicate customer IDs, and signup_date mixes two formats (DD/MM/YYYY and ISO). Recommend deduplicating and normalising dates before loading.",
        "Data quality check: 12,480 rows; email missing in 3.2%; 57 duplicated customer_id values; signup_date in both DD/MM/YYYY and YYYY-MM-DD. Deduplicate and standardise the dates before the load.",
        "12,480 records reviewed. Issues: 3.2% have no email, 57 customer IDs appear more than once, and signup dates use two formats (DD/MM/YYYY plus ISO 8601). Before loading, remove the duplicates and convert the dates to one format.",
        "- Rows: 12,480\n- Missing email: 3.2%\n- Duplicate customer IDs: 57\n- signup_date: mixed DD/MM/YYYY and ISO\n- Next: dedupe, normalise dates, then load",
        "Out of 12,480 rows, 3.2% lack an email address. I also found 57 duplicate customer IDs and a signup_date column with two formats, DD/MM/YYYY and ISO. I'd dedupe and normalise the dates before loading.",
        "The CSV contains 12,480 rows with three problems: emails missing in 3.2% of rows, 57 duplicated customer IDs, and signup_date written both as DD/MM/YYYY and in ISO format. Deduplicate and normalise dates prior to loading.",
        "Checked 12,480 rows. Missing emails: 3.2%. Duplicate customer IDs: 57. Dates in signup_date come in DD/MM/YYYY and ISO formats. Recommendation: clean duplicates and unify the date format first.",
        "Summary: 12,480 rows, 57 duplicate customer IDs, 3.2% missing email, and inconsistent signup_date formats (DD/MM/YYYY vs ISO). Please dedupe and normalise the dates before we load it.",
        "There are 12,480 rows in the file. Emails are blank for 3.2% of them, 57 customer IDs are duplicated, and signup_date is split between DD/MM/YYYY and ISO. Dedup and date normalisation should happen before loading.",
    ],
    (
        "reworded, day-first (hard)",
        "Across the export's 12,480 rows, 3.2% have an empty email field. Fifty-seven customer identifiers occur repeatedly, and the signup_date column mixes day-first DD/MM/YYYY strings with ISO ones. Clean out the repeats and bring every date to a single format, then load.",
        WITHIN,
    ),
    (
        "issues reordered",
        "signup_date mixes DD/MM/YYYY with ISO; 57 customer IDs are duplicated; 3.2% of the 12,480 rows have no email. Dedupe and normalise dates, then load.",
        WITHIN,
    ),
    (
        "figures swapped between issues",
        "The file has 12,480 rows. 57 rows are missing an email, 3.2% of customer IDs are duplicated, and signup_date mixes two formats (DD/MM/YYYY and ISO). Recommend deduplicating and normalising dates before loading.",
        BEYOND,
    ),
    (
        "another row count",
        "Data quality check: 12,840 rows; email missing in 3.2%; 57 duplicated customer_id values; signup_date in both DD/MM/YYYY and YYYY-MM-DD. Deduplicate and standardise the dates before the load.",
        BEYOND,
    ),
    (
        "phone instead of email",
        "12,480 records reviewed. Issues: 3.2% have no phone number, 57 customer IDs appear more than once, and signup dates use two formats (DD/MM/YYYY plus ISO 8601). Before loading, remove the duplicates and convert the dates to one format.",
        BEYOND,
    ),
    (
        "load as is",
        "Out of 12,480 rows, 3.2% lack an email address, there are 57 duplicate customer IDs and signup_date has two formats, DD/MM/YYYY and ISO. These are minor; it is fine to load the file as is.",
        BEYOND,
    ),
    (
        "passive",
        "12,480 rows were checked. An email is missing from 3.2% of them, 57 customer IDs are duplicated, and two date formats (DD/MM/YYYY and ISO) are found in signup_date. Deduplication and date normalisation are recommended before the load.",
        WITHIN,
    ),
)

family(
    "billing ticket classification rationale",
    [
        "Label: billing. The customer was charged twice for the March subscription ($19 each) and reports no technical problem. Route to the payments team; urgency medium.",
        "Classified as billing — a duplicate $19 charge for the March subscription, with nothing technical reported. Send to payments, medium urgency.",
        "Category: billing. Reason: double charge ($19 × 2) for March's subscription; the product itself works fine per the customer. Routing: payments team. Urgency: medium.",
        "- Label: billing\n- Why: March subscription charged twice, $19 each\n- No technical issue reported\n- Route: payments team\n- Urgency: medium",
        "This is a billing ticket: the customer sees two $19 charges for the March subscription and mentions no technical issue. It should go to the payments team with medium urgency.",
        "Billing. The user's card was billed $19 twice for March and there's no technical complaint. Assign to payments; medium priority.",
        "I'd label it billing because the only problem is a duplicate charge of $19 for the March subscription — no technical fault is described. Route to the payments team at medium urgency.",
        "Label = billing (duplicate March subscription charge, 2 × $19; no technical issue). Routing = payments. Urgency = medium.",
        "The ticket belongs in billing: March's subscription was charged twice at $19, and the customer raises nothing technical. Payments team, medium urgency.",
    ],
    (
        "reworded, billed two times (hard)",
        "Falls under billing: the account was debited $19 two times for the same March plan, and the app itself is behaving, according to the customer. Hand it to the payments group; moderate urgency.",
        WITHIN,
    ),
    (
        "routing first",
        "Payments team, medium urgency. Label billing: March subscription charged twice ($19 each); no technical issue.",
        WITHIN,
    ),
    (
        "labelled technical",
        "Label: technical. The customer was charged twice for the March subscription ($19 each) after an app error during checkout. Route to the engineering team; urgency medium.",
        BEYOND,
    ),
    (
        "charged three times",
        "Classified as billing — a triple $19 charge for the March subscription, with nothing technical reported. Send to payments, medium urgency.",
        BEYOND,
    ),
    (
        "high urgency",
        "Category: billing. Reason: double charge ($19 × 2) for March's subscription; the product itself works fine per the customer. Routing: payments team. Urgency: high.",
        BEYOND,
    ),
    (
        "question and arrow",
        "Why billing? The March subscription hit the customer's card twice — $19 both times — and nothing technical is broken. → payments team, medium urgency.",
        WITHIN,
    ),
)

family(
    "search results summary on a licence change",
    [
        "According to the project blog and the GitHub release notes, Acorn switched its licence from MIT to Apache 2.0 starting with version 3.0, released in June 2024. Earlier versions remain under MIT. The maintainers cite Apache 2.0's explicit patent grant as the reason.",
        "Acorn moved from the MIT licence to Apache 2.0 in version 3.0 (June 2024); releases before 3.0 stay MIT. The reason given is the explicit patent grant in Apache 2.0. Sources: the Acorn blog post and the GitHub release notes.",
        "Summary: from v3.0 (released June 2024) Acorn is licensed under Apache 2.0 instead of MIT. Older versions are still MIT-licensed. The maintainers wanted Apache's patent grant. (Sources: project blog, GitHub releases.)",
        "- Change: MIT → Apache 2.0\n- From: version 3.0, June 2024\n- Older versions: still MIT\n- Why: Apache 2.0's explicit patent grant\n- Sources: blog post, GitHub release notes",
        "The search results agree: Acorn relicensed to Apache 2.0 (from MIT) with its 3.0 release in June 2024, while versions before that remain MIT. The blog post explains the motivation as Apache 2.0's explicit patent grant; the GitHub release notes confirm the change.",
        "Acorn 3.0, out in June 2024, is the first version under Apache 2.0; previously the project used MIT, and pre-3.0 releases keep that licence. Maintainers point to Apache's explicit patent grant. Per the project blog and GitHub release notes.",
        "Yes, Acorn changed licence: MIT up to 2.x, Apache 2.0 from 3.0 onward (June 2024). The patent grant in Apache 2.0 was the stated reason. This comes from the official blog and the release notes on GitHub.",
        "Based on two sources (the Acorn blog and GitHub release notes), version 3.0 of Acorn, released June 2024, adopted Apache 2.0 in place of MIT. Earlier releases are unaffected and stay MIT. Motivation: Apache 2.0's explicit patent grant.",
        "Acorn's licence changed from MIT to Apache-2.0 as of version 3.0 in June 2024, for the sake of Apache's explicit patent grant; versions prior to 3.0 remain under MIT. Sources: project blog post; GitHub release notes.",
    ],
    (
        "reworded, patent protection (hard)",
        "Two sources — the maintainers' blog entry and the release page on GitHub — report that Acorn dropped MIT in favour of the Apache License 2.0 when 3.0 shipped in June 2024, chiefly to gain the patent grant Apache spells out. Anything released before 3.0 keeps its MIT terms.",
        WITHIN,
    ),
    (
        "old versions first",
        "Pre-3.0 releases of Acorn stay MIT; from 3.0 (June 2024) it's Apache 2.0, chosen for its explicit patent grant. Sources: blog post and GitHub release notes.",
        WITHIN,
    ),
    (
        "direction reversed",
        "According to the project blog and the GitHub release notes, Acorn switched its licence from Apache 2.0 to MIT starting with version 3.0, released in June 2024. Earlier versions remain under Apache 2.0. The maintainers cite MIT's simplicity as the reason.",
        BEYOND,
    ),
    (
        "GPL instead",
        "Acorn moved from the MIT licence to GPLv3 in version 3.0 (June 2024); releases before 3.0 stay MIT. The reason given is protecting the project from proprietary forks. Sources: the Acorn blog post and the GitHub release notes.",
        BEYOND,
    ),
    (
        "another version and year",
        "Summary: from v2.0 (released June 2023) Acorn is licensed under Apache 2.0 instead of MIT. Older versions are still MIT-licensed. The maintainers wanted Apache's patent grant. (Sources: project blog, GitHub releases.)",
        BEYOND,
    ),
    (
        "old versions relicensed too",
        "Acorn relicensed to Apache 2.0 (from MIT) with its 3.0 release in June 2024, and all earlier versions were retroactively relicensed under Apache 2.0 as well. The blog post explains the motivation as Apache 2.0's explicit patent grant.",
        BEYOND,
    ),
    (
        "shorthand",
        "Acorn: MIT → Apache 2.0 from v3.0 (Jun 2024), for the patent grant; <3.0 stays MIT. Sources: blog, GitHub release notes.",
        WITHIN,
    ),
)

# ============================================================================ product and pricing

family(
    "wireless earbuds spec summary",
    [
        "The earbuds last 8 hours per charge, or 32 hours with the case. They're rated IPX4, use Bluetooth 5.3, weigh 5.2 g each, and have active noise cancellation. The case charges over USB-C or wirelessly.",
        "Battery: 8 h per charge, 32 h total with the case. IPX4 water resistance, Bluetooth 5.3, active noise cancelling, 5.2 g per earbud. Case supports USB-C and wireless charging.",
        "Specs: 8-hour playback (32 hours including the charging case), IPX4, Bluetooth 5.3, ANC, 5.2 g per bud, USB-C plus wireless charging for the case.",
        "- Battery: 8 h (32 h with case)\n- Water resistance: IPX4\n- Bluetooth: 5.3\n- Weight: 5.2 g each\n- ANC: yes\n- Charging: USB-C, wireless",
        "These buds give you eight hours of listening per charge and 32 hours with the case. They feature active noise cancellation and Bluetooth 5.3, are IPX4 rated, and weigh 5.2 g each. You can charge the case via USB-C or on a wireless pad.",
        "Each earbud weighs 5.2 g. Battery life is 8 hours, extended to 32 hours by the case, which charges by USB-C or wirelessly. Also: IPX4, Bluetooth 5.3, active noise cancellation.",
        "With active noise cancellation, Bluetooth 5.3 and an IPX4 rating, these 5.2 g earbuds run 8 hours on a charge and 32 hours with the case (USB-C or wireless charging).",
        "Key specs — 8 h battery per charge, 32 h with the case; IPX4; BT 5.3; ANC; 5.2 g per earbud; case charging via USB-C or Qi wireless.",
        "Playback time is 8 hours, or 32 with the case. The earbuds are IPX4-rated, connect over Bluetooth 5.3, weigh 5.2 grams apiece and include active noise cancellation. The case takes USB-C or wireless charging.",
    ],
    (
        "reworded, splash-resistant (hard)",
        "Expect eight hours from a single top-up, stretching to 32 hours once the case refills them. Each bud tips the scales at 5.2 grams, is splash-resistant to IPX4, pairs over Bluetooth 5.3 and can actively cancel outside noise. Recharge the case with a USB-C cable or by laying it on a wireless pad.",
        WITHIN,
    ),
    (
        "markdown table",
        "| Spec | Value |\n|---|---|\n| Battery | 8 h / 32 h with case |\n| Rating | IPX4 |\n| Bluetooth | 5.3 |\n| Weight | 5.2 g per earbud |\n| ANC | Yes |\n| Case charging | USB-C, wireless |",
        WITHIN,
    ),
    (
        "IPX7",
        "The earbuds last 8 hours per charge, or 32 hours with the case. They're rated IPX7, use Bluetooth 5.3, weigh 5.2 g each, and have active noise cancellation. The case charges over USB-C or wirelessly.",
        BEYOND,
    ),
    (
        "no wireless charging",
        "Battery: 8 h per charge, 32 h total with the case. IPX4 water resistance, Bluetooth 5.3, active noise cancelling, 5.2 g per earbud. Case charges over USB-C only; no wireless charging.",
        BEYOND,
    ),
    (
        "battery figures changed",
        "Specs: 6-hour playback (24 hours including the charging case), IPX4, Bluetooth 5.3, ANC, 5.2 g per bud, USB-C plus wireless charging for the case.",
        BEYOND,
    ),
    (
        "no noise cancellation",
        "These buds give you eight hours of listening per charge and 32 hours with the case. They use Bluetooth 5.3, are IPX4 rated, and weigh 5.2 g each, but have no active noise cancellation. You can charge the case via USB-C or on a wireless pad.",
        BEYOND,
    ),
    (
        "bullets reordered",
        "- USB-C and wireless charging (case)\n- ANC\n- 5.2 g per earbud\n- Bluetooth 5.3\n- IPX4\n- 8 h battery, 32 h with case",
        WITHIN,
    ),
)

family(
    "markdown table of plan pricing",
    [
        "| Plan | Price / month | Users | Storage |\n|---|---|---|---|\n| Basic | $9 | 1 | 10 GB |\n| Pro | $29 | 5 | 100 GB |\n| Team | $79 | 20 | 1 TB |",
        "| Plan | Monthly price | Users | Storage |\n| --- | --- | --- | --- |\n| Basic | $9 | 1 | 10 GB |\n| Pro | $29 | 5 | 100 GB |\n| Team | $79 | 20 | 1 TB |",
        "Here's the comparison:\n\n| Plan | Price | Users | Storage |\n|:--|--:|--:|--:|\n| Basic | $9/mo | 1 | 10 GB |\n| Pro | $29/mo | 5 | 100 GB |\n| Team | $79/mo | 20 | 1 TB |",
        "| Plan  | $/month | Seats | Storage |\n|-------|---------|-------|---------|\n| Basic | 9       | 1     | 10 GB   |\n| Pro   | 29      | 5     | 100 GB  |\n| Team  | 79      | 20    | 1 TB    |",
        "| | Basic | Pro | Team |\n|---|---|---|---|\n| Price/month | $9 | $29 | $79 |\n| Users | 1 | 5 | 20 |\n| Storage | 10 GB | 100 GB | 1 TB |",
        "| Plan | Price (monthly) | Included users | Storage |\n|---|---|---|---|\n| **Basic** | $9 | 1 | 10 GB |\n| **Pro** | $29 | 5 | 100 GB |\n| **Team** | $79 | 20 | 1 TB |",
        "| Plan | Users | Storage | Price/mo |\n|---|---|---|---|\n| Basic | 1 | 10 GB | $9 |\n| Pro | 5 | 100 GB | $29 |\n| Team | 20 | 1 TB | $79 |",
        "Pricing overview:\n\n| Plan | Price per month | Users | Storage |\n|---|---|---|---|\n| Basic | $9 | 1 user | 10 GB |\n| Pro | $29 | up to 5 users | 100 GB |\n| Team | $79 | up to 20 users | 1 TB |",
        "| Plan | Cost/month | Users | Storage |\n|------|-----------:|------:|--------:|\n| Basic | $9.00 | 1 | 10 GB |\n| Pro | $29.00 | 5 | 100 GB |\n| Team | $79.00 | 20 | 1 TB |",
    ],
    (
        "columns reordered, rows reversed",
        "| Storage | Plan | Users | Price/month |\n|---|---|---|---|\n| 1 TB | Team | 20 | $79 |\n| 100 GB | Pro | 5 | $29 |\n| 10 GB | Basic | 1 | $9 |",
        WITHIN,
    ),
    (
        "as a bullet list",
        "- **Basic**: $9/month, 1 user, 10 GB storage\n- **Pro**: $29/month, 5 users, 100 GB storage\n- **Team**: $79/month, 20 users, 1 TB storage",
        WITHIN,
    ),
    (
        "1,000 GB for 1 TB (hard)",
        "| Plan | Price / month | Users | Storage |\n|---|---|---|---|\n| Basic | $9 | 1 | 10 GB |\n| Pro | $29 | 5 | 100 GB |\n| Team | $79 | 20 | 1,000 GB |",
        WITHIN,
    ),
    (
        "Pro price changed",
        "| Plan | Price / month | Users | Storage |\n|---|---|---|---|\n| Basic | $9 | 1 | 10 GB |\n| Pro | $39 | 5 | 100 GB |\n| Team | $79 | 20 | 1 TB |",
        BEYOND,
    ),
    (
        "storage swapped between Pro and Team",
        "| Plan | Monthly price | Users | Storage |\n| --- | --- | --- | --- |\n| Basic | $9 | 1 | 10 GB |\n| Pro | $29 | 5 | 1 TB |\n| Team | $79 | 20 | 100 GB |",
        BEYOND,
    ),
    (
        "Team storage in GB",
        "| Plan | Users | Storage | Price/mo |\n|---|---|---|---|\n| Basic | 1 | 10 GB | $9 |\n| Pro | 5 | 100 GB | $29 |\n| Team | 20 | 1 GB | $79 |",
        BEYOND,
    ),
    (
        "euros",
        "| Plan | Price / month | Users | Storage |\n|---|---|---|---|\n| Basic | €9 | 1 | 10 GB |\n| Pro | €29 | 5 | 100 GB |\n| Team | €79 | 20 | 1 TB |",
        BEYOND,
    ),
)

# ============================================================================ devops and config

family(
    "on-call handover note",
    [
        "Handover: the payment-service p99 latency alert has been flapping since 02:00 UTC. Root cause unknown; we suspect DB connection pool exhaustion. Mitigated by scaling to 6 pods. Tracking in OPS-431. Priya is next on call; nothing else open.",
        "Payment-service p99 latency alert flapping since 02:00 UTC. Cause not yet known (suspect connection pool exhaustion). Scaled out to 6 pods as mitigation. Ticket OPS-431. Handing over to Priya — no other open issues.",
        "For Priya, taking over on-call: since 02:00 UTC the p99 latency alert on payment-service keeps firing and clearing. We haven't found the root cause, but the DB connection pool running out is the main suspect. I scaled it to 6 pods, which helped. Details in OPS-431. Nothing else is open.",
        "- Alert: payment-service p99 latency, flapping since 02:00 UTC\n- Root cause: unknown, suspect connection pool exhaustion\n- Mitigation: scaled to 6 pods\n- Ticket: OPS-431\n- Next on-call: Priya\n- Other open items: none",
        "Shift handover to Priya. Only open item: payment-service p99 latency alert flapping from 02:00 UTC. Root cause still unknown — likely connection pool exhaustion. We scaled to 6 pods to mitigate; see OPS-431.",
        "Status at handover: payment-service's p99 latency alert has flapped since 02:00 UTC. We mitigated by scaling to six pods; root cause is unconfirmed, with DB pool exhaustion suspected. OPS-431 tracks it. Priya has the pager next. No other incidents.",
        "Priya, you're up next. payment-service p99 latency has been alerting on and off since 02:00 UTC; we don't know why yet but suspect the connection pool is exhausted. Scaling to 6 pods mitigated it. OPS-431 has the notes. Nothing else outstanding.",
        "On-call handover — payment-service: flapping p99 latency alert since 02:00 UTC, root cause unknown (connection pool exhaustion suspected), mitigated with 6 pods, OPS-431. Next: Priya. No other open issues.",
        "The payment-service p99 latency alert started flapping at 02:00 UTC. We scaled to 6 pods to mitigate it while we investigate; suspected cause is DB connection pool exhaustion, not confirmed. Ticket: OPS-431. Priya takes over on-call; there's nothing else open.",
    ],
    (
        "reworded, tail latency (hard)",
        "Passing the pager to Priya. From 02:00 UTC onward the alert on payment-service's 99th-percentile response time has been toggling between firing and resolved. Nobody has pinned down why; our best guess is that the service is running out of database connections. Bumping it to six replicas calmed things down. Everything is written up in OPS-431, and no other incidents are pending.",
        WITHIN,
    ),
    (
        "terse",
        "payment-svc p99 latency flapping since 02:00 UTC; RCA unknown (suspect conn pool exhaustion); mitigated: 6 pods; OPS-431; next on-call Priya; nothing else open.",
        WITHIN,
    ),
    (
        "scaled down to 2 pods",
        "Handover: the payment-service p99 latency alert has been flapping since 02:00 UTC. Root cause unknown; we suspect DB connection pool exhaustion. Mitigated by scaling down to 2 pods. Tracking in OPS-431. Priya is next on call; nothing else open.",
        BEYOND,
    ),
    (
        "root cause confirmed",
        "Payment-service p99 latency alert flapping since 02:00 UTC. Root cause confirmed: connection pool exhaustion, fixed by raising the pool size; the alert has cleared. Ticket OPS-431. Handing over to Priya — no other open issues.",
        BEYOND,
    ),
    (
        "another ticket and next on-call",
        "- Alert: payment-service p99 latency, flapping since 02:00 UTC\n- Root cause: unknown, suspect connection pool exhaustion\n- Mitigation: scaled to 6 pods\n- Ticket: OPS-413\n- Next on-call: Marcus\n- Other open items: none",
        BEYOND,
    ),
    (
        "another service",
        "Shift handover to Priya. Only open item: checkout-service p99 latency alert flapping from 02:00 UTC. Root cause still unknown — likely connection pool exhaustion. We scaled to 6 pods to mitigate; see OPS-431.",
        BEYOND,
    ),
    (
        "bullets reordered",
        "Next on-call: Priya\n- OPS-431: payment-service p99 latency alert, flapping since 02:00 UTC\n- Mitigation: 6 pods\n- Cause: unknown (connection pool exhaustion suspected)\n- Nothing else open",
        WITHIN,
    ),
)

family(
    "nginx upload limit config change",
    [
        "To allow larger uploads, raise client_max_body_size from 1m to 20m in the server block of /etc/nginx/sites-available/uploads.conf. Check the config with `nginx -t`, then apply it with `systemctl reload nginx` — no restart needed.",
        "Edit /etc/nginx/sites-available/uploads.conf and, inside the server block, change `client_max_body_size 1m;` to `client_max_body_size 20m;`. Validate with `sudo nginx -t` and reload (not restart) via `sudo systemctl reload nginx`.",
        "The 413 errors come from the 1m upload limit. In uploads.conf (/etc/nginx/sites-available/), set client_max_body_size 20m; in the server block. Then run nginx -t and systemctl reload nginx; a full restart isn't necessary.",
        "Steps:\n1. Open /etc/nginx/sites-available/uploads.conf\n2. In the server block: client_max_body_size 20m; (was 1m)\n3. sudo nginx -t\n4. sudo systemctl reload nginx",
        "Increase the upload limit by setting `client_max_body_size 20m;` (currently 1m) in the `server { }` block of /etc/nginx/sites-available/uploads.conf. Test the configuration with nginx -t and reload nginx with systemctl reload nginx.",
        "Change client_max_body_size to 20m (from 1m) in the server block of uploads.conf under /etc/nginx/sites-available. After `nginx -t` passes, `systemctl reload nginx` applies it without a restart.",
        "```nginx\nserver {\n    # was 1m\n    client_max_body_size 20m;\n}\n```\nPut this in /etc/nginx/sites-available/uploads.conf, run `nginx -t`, then `systemctl reload nginx`.",
        "Your upload limit is 1m. Bump client_max_body_size to 20m in the server block of /etc/nginx/sites-available/uploads.conf, verify with nginx -t, and reload nginx (systemctl reload nginx). No restart required.",
        "In /etc/nginx/sites-available/uploads.conf, within server { ... }, replace client_max_body_size 1m; with client_max_body_size 20m;. Run `sudo nginx -t` to check syntax, then `sudo systemctl reload nginx`.",
    ],
    (
        "reworded, graceful reload (hard)",
        "Nginx currently caps request bodies at one megabyte. Open uploads.conf in /etc/nginx/sites-available, find the server section and lift client_max_body_size to 20m. Confirm the syntax is valid using nginx -t, then have systemd reload the service gracefully — systemctl reload nginx — rather than bouncing it.",
        WITHIN,
    ),
    (
        "one-liner",
        "uploads.conf (sites-available), server block: client_max_body_size 1m → 20m; nginx -t && systemctl reload nginx.",
        WITHIN,
    ),
    (
        "200m",
        "To allow larger uploads, raise client_max_body_size from 1m to 200m in the server block of /etc/nginx/sites-available/uploads.conf. Check the config with `nginx -t`, then apply it with `systemctl reload nginx` — no restart needed.",
        BEYOND,
    ),
    (
        "lowered instead",
        "Edit /etc/nginx/sites-available/uploads.conf and, inside the server block, change `client_max_body_size 20m;` to `client_max_body_size 1m;`. Validate with `sudo nginx -t` and reload (not restart) via `sudo systemctl reload nginx`.",
        BEYOND,
    ),
    (
        "global nginx.conf http block",
        "Increase the upload limit by setting `client_max_body_size 20m;` (currently 1m) in the `http { }` block of /etc/nginx/nginx.conf. Test the configuration with nginx -t and reload nginx with systemctl reload nginx.",
        BEYOND,
    ),
    (
        "code block",
        "```nginx\n# /etc/nginx/sites-available/uploads.conf, server block\nclient_max_body_size 20m;  # previously 1m\n```\nThen: `sudo nginx -t && sudo systemctl reload nginx` (a reload is enough).",
        WITHIN,
    ),
)

family(
    "Kubernetes deployment manifest from a coding agent",
    [
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders-api\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: orders-api\n  template:\n    metadata:\n      labels:\n        app: orders-api\n    spec:\n      containers:\n        - name: orders-api\n          image: registry.example.com/orders-api:2.4.1\n          ports:\n            - containerPort: 8080\n          resources:\n            limits:\n              memory: 512Mi\n              cpu: 500m",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders-api\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: orders-api\n  template:\n    metadata:\n      labels:\n        app: orders-api\n    spec:\n      containers:\n      - name: orders-api\n        image: registry.example.com/orders-api:2.4.1\n        ports:\n        - containerPort: 8080\n        resources:\n          limits:\n            cpu: 500m\n            memory: 512Mi",
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders-api\n  labels:\n    app: orders-api\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: orders-api\n  template:\n    metadata:\n      labels:\n        app: orders-api\n    spec:\n      containers:\n        - name: orders-api\n          image: "registry.example.com/orders-api:2.4.1"\n          ports:\n            - containerPort: 8080\n          resources:\n            limits:\n              memory: "512Mi"\n              cpu: "500m"',
        "# orders-api: 3 replicas, 512Mi / 500m limits\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders-api\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: orders-api\n  template:\n    metadata:\n      labels:\n        app: orders-api\n    spec:\n      containers:\n        - name: orders-api\n          image: registry.example.com/orders-api:2.4.1\n          ports:\n            - containerPort: 8080\n          resources:\n            limits:\n              memory: 512Mi\n              cpu: 500m",
        "kind: Deployment\napiVersion: apps/v1\nmetadata:\n  name: orders-api\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: orders-api\n  template:\n    metadata:\n      labels:\n        app: orders-api\n    spec:\n      containers:\n        - name: orders-api\n          image: registry.example.com/orders-api:2.4.1\n          ports:\n            - containerPort: 8080\n          resources:\n            limits:\n              memory: 512Mi\n              cpu: 500m",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders-api\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: orders-api\n  template:\n    metadata:\n      labels:\n        app: orders-api\n    spec:\n      containers:\n        - name: orders-api\n          image: registry.example.com/orders-api:2.4.1\n          ports:\n            - containerPort: 8080\n              protocol: TCP\n          resources:\n            limits:\n              memory: 512Mi\n              cpu: 500m",
        "Here's the manifest:\n\n```yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders-api\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: orders-api\n  template:\n    metadata:\n      labels:\n        app: orders-api\n    spec:\n      containers:\n        - name: orders-api\n          image: registry.example.com/orders-api:2.4.1\n          ports:\n            - containerPort: 8080\n          resources:\n            limits:\n              memory: 512Mi\n              cpu: 500m\n```",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders-api\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {app: orders-api}\n  template:\n    metadata:\n      labels: {app: orders-api}\n    spec:\n      containers:\n        - name: orders-api\n          image: registry.example.com/orders-api:2.4.1\n          ports: [{containerPort: 8080}]\n          resources:\n            limits: {memory: 512Mi, cpu: 500m}",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders-api\nspec:\n  selector:\n    matchLabels:\n      app: orders-api\n  replicas: 3\n  template:\n    metadata:\n      labels:\n        app: orders-api\n    spec:\n      containers:\n        - image: registry.example.com/orders-api:2.4.1\n          name: orders-api\n          ports:\n            - containerPort: 8080\n          resources:\n            limits:\n              cpu: 500m\n              memory: 512Mi",
    ],
    (
        "keys reordered, cpu as 0.5 (hard)",
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders-api\nspec:\n  replicas: 3\n  template:\n    metadata:\n      labels:\n        app: orders-api\n    spec:\n      containers:\n        - name: orders-api\n          image: registry.example.com/orders-api:2.4.1\n          resources:\n            limits:\n              cpu: "0.5"\n              memory: 512Mi\n          ports:\n            - containerPort: 8080\n  selector:\n    matchLabels:\n      app: orders-api',
        WITHIN,
    ),
    (
        "flow style, quoted",
        'apiVersion: "apps/v1"\nkind: "Deployment"\nmetadata: {name: "orders-api"}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: "orders-api"}}\n  template:\n    metadata: {labels: {app: "orders-api"}}\n    spec:\n      containers:\n        - {name: "orders-api", image: "registry.example.com/orders-api:2.4.1", ports: [{containerPort: 8080}], resources: {limits: {memory: "512Mi", cpu: "500m"}}}',
        WITHIN,
    ),
    (
        "one replica",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders-api\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: orders-api\n  template:\n    metadata:\n      labels:\n        app: orders-api\n    spec:\n      containers:\n        - name: orders-api\n          image: registry.example.com/orders-api:2.4.1\n          ports:\n            - containerPort: 8080\n          resources:\n            limits:\n              memory: 512Mi\n              cpu: 500m",
        BEYOND,
    ),
    (
        "older image tag",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders-api\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: orders-api\n  template:\n    metadata:\n      labels:\n        app: orders-api\n    spec:\n      containers:\n      - name: orders-api\n        image: registry.example.com/orders-api:2.4.0\n        ports:\n        - containerPort: 8080\n        resources:\n          limits:\n            cpu: 500m\n            memory: 512Mi",
        BEYOND,
    ),
    (
        "memory in Gi",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders-api\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: orders-api\n  template:\n    metadata:\n      labels:\n        app: orders-api\n    spec:\n      containers:\n        - name: orders-api\n          image: registry.example.com/orders-api:2.4.1\n          ports:\n            - containerPort: 8080\n          resources:\n            limits:\n              memory: 512Gi\n              cpu: 500m",
        BEYOND,
    ),
    (
        "port 80",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders-api\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: orders-api\n  template:\n    metadata:\n      labels:\n        app: orders-api\n    spec:\n      containers:\n        - name: orders-api\n          image: registry.example.com/orders-api:2.4.1\n          ports:\n            - containerPort: 80\n          resources:\n            limits:\n              memory: 512Mi\n              cpu: 500m",
        BEYOND,
    ),
    (
        "document marker, single quotes",
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: 'orders-api'\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: 'orders-api'\n  template:\n    metadata:\n      labels:\n        app: 'orders-api'\n    spec:\n      containers:\n      - name: 'orders-api'\n        image: 'registry.example.com/orders-api:2.4.1'\n        ports:\n        - containerPort: 8080\n        resources:\n          limits: {cpu: 500m, memory: 512Mi}",
        WITHIN,
    ),
)

# ============================================================================ tool calls as JSON

family(
    "JSON tool call to open a Jira issue",
    [
        '{"tool": "create_issue", "arguments": {"project": "OPS", "type": "Bug", "priority": "High", "assignee": "maria.lopez", "summary": "Checkout returns 500 for EU customers", "labels": ["checkout", "eu"]}}',
        '{"tool": "create_issue", "arguments": {"project": "OPS", "type": "Bug", "summary": "Checkout page returns HTTP 500 for EU customers", "priority": "High", "assignee": "maria.lopez", "labels": ["checkout", "eu"]}}',
        '{\n  "tool": "create_issue",\n  "arguments": {\n    "project": "OPS",\n    "type": "Bug",\n    "priority": "High",\n    "assignee": "maria.lopez",\n    "summary": "EU customers get a 500 error at checkout",\n    "labels": ["checkout", "eu"]\n  }\n}',
        '{"arguments": {"project": "OPS", "type": "Bug", "priority": "High", "assignee": "maria.lopez", "summary": "500 error on checkout for EU customers", "labels": ["checkout", "eu"]}, "tool": "create_issue"}',
        '{"tool":"create_issue", "arguments":{"project":"OPS","type":"Bug","priority":"High","assignee":"maria.lopez","summary":"Checkout fails with 500 for customers in the EU","labels":["checkout","eu"]}}',
        '{"tool": "create_issue", "arguments": {"assignee": "maria.lopez", "priority": "High", "type": "Bug", "project": "OPS", "labels": ["checkout", "eu"], "summary": "Checkout returns 500 for EU customers"}}',
        '{ "tool": "create_issue", "arguments": { "project": "OPS", "type": "Bug", "priority": "High", "assignee": "maria.lopez", "summary": "HTTP 500 at checkout for EU shoppers", "labels": [ "checkout", "eu" ] } }',
        '{"tool": "create_issue", "arguments": {"project": "OPS", "type": "Bug", "priority": "High", "assignee": "maria.lopez", "summary": "Checkout: 500 Internal Server Error for EU customers", "labels": ["eu", "checkout"]}}',
        '{"tool": "create_issue", "arguments": {"project": "OPS", "summary": "EU customers hit a 500 on the checkout page", "type": "Bug", "priority": "High", "assignee": "maria.lopez", "labels": ["checkout", "eu"]}}',
    ],
    (
        "keys reordered, summary reworded",
        '{"arguments": {"labels": ["checkout", "eu"], "summary": "Server error 500 when EU customers check out", "assignee": "maria.lopez", "priority": "High", "type": "Bug", "project": "OPS"}, "tool": "create_issue"}',
        WITHIN,
    ),
    (
        "pretty-printed, tab indent",
        '{\n\t"tool": "create_issue",\n\t"arguments": {\n\t\t"project": "OPS",\n\t\t"type": "Bug",\n\t\t"priority": "High",\n\t\t"assignee": "maria.lopez",\n\t\t"summary": "Checkout returns 500 for EU customers",\n\t\t"labels": ["checkout", "eu"]\n\t}\n}',
        WITHIN,
    ),
    (
        "priority Low",
        '{"tool": "create_issue", "arguments": {"project": "OPS", "type": "Bug", "priority": "Low", "assignee": "maria.lopez", "summary": "Checkout returns 500 for EU customers", "labels": ["checkout", "eu"]}}',
        BEYOND,
    ),
    (
        "another assignee",
        '{"tool": "create_issue", "arguments": {"project": "OPS", "type": "Bug", "priority": "High", "assignee": "tom.becker", "summary": "Checkout returns 500 for EU customers", "labels": ["checkout", "eu"]}}',
        BEYOND,
    ),
    (
        "update instead of create",
        '{"tool": "update_issue", "arguments": {"project": "OPS", "type": "Bug", "priority": "High", "assignee": "maria.lopez", "summary": "Checkout returns 500 for EU customers", "labels": ["checkout", "eu"]}}',
        BEYOND,
    ),
    (
        "US customers",
        '{"tool": "create_issue", "arguments": {"project": "OPS", "type": "Bug", "priority": "High", "assignee": "maria.lopez", "summary": "Checkout returns 500 for US customers", "labels": ["checkout", "us"]}}',
        BEYOND,
    ),
    (
        "labels reordered, summary reworded",
        '{"tool": "create_issue", "arguments": {"project": "OPS", "type": "Bug", "priority": "High", "assignee": "maria.lopez", "summary": "Checkout errors out with a 500 for EU-based customers", "labels": ["eu", "checkout"]}}',
        WITHIN,
    ),
)

family(
    "JSON tool call to set a thermostat",
    [
        '{"tool": "set_thermostat", "arguments": {"room": "living_room", "target": 21, "unit": "celsius", "mode": "heat", "until": "22:00"}}',
        '{"tool": "set_thermostat", "arguments": {"room": "living_room", "mode": "heat", "target": 21, "unit": "celsius", "until": "22:00"}}',
        '{\n  "tool": "set_thermostat",\n  "arguments": {\n    "room": "living_room",\n    "target": 21,\n    "unit": "celsius",\n    "mode": "heat",\n    "until": "22:00"\n  }\n}',
        '{"arguments": {"room": "living_room", "target": 21, "unit": "celsius", "mode": "heat", "until": "22:00"}, "tool": "set_thermostat"}',
        '{"tool":"set_thermostat", "arguments":{"room":"living_room", "target":21, "unit":"celsius", "mode":"heat", "until":"22:00"}}',
        '{"tool": "set_thermostat", "arguments": {"until": "22:00", "mode": "heat", "unit": "celsius", "target": 21, "room": "living_room"}}',
        '{ "tool": "set_thermostat", "arguments": { "room": "living_room", "target": 21, "unit": "celsius", "mode": "heat", "until": "22:00" } }',
        '{"tool": "set_thermostat", "arguments": {"room": "living_room", "target": 21.0, "unit": "celsius", "mode": "heat", "until": "22:00"}}',
        '{"tool": "set_thermostat", "arguments": {"target": 21, "unit": "celsius", "room": "living_room", "mode": "heat", "until": "22:00"}}',
    ],
    (
        "keys reordered, compact",
        '{"arguments":{"mode":"heat","until":"22:00","room":"living_room","unit":"celsius","target":21}, "tool":"set_thermostat"}',
        WITHIN,
    ),
    (
        "pretty-printed, four spaces",
        '{\n    "tool": "set_thermostat",\n    "arguments": {\n        "room": "living_room",\n        "mode": "heat",\n        "target": 21,\n        "unit": "celsius",\n        "until": "22:00"\n    }\n}',
        WITHIN,
    ),
    (
        "fahrenheit",
        '{"tool": "set_thermostat", "arguments": {"room": "living_room", "target": 21, "unit": "fahrenheit", "mode": "heat", "until": "22:00"}}',
        BEYOND,
    ),
    (
        "cool mode",
        '{"tool": "set_thermostat", "arguments": {"room": "living_room", "target": 21, "unit": "celsius", "mode": "cool", "until": "22:00"}}',
        BEYOND,
    ),
    (
        "bedroom",
        '{"tool": "set_thermostat", "arguments": {"room": "bedroom", "target": 21, "unit": "celsius", "mode": "heat", "until": "22:00"}}',
        BEYOND,
    ),
    (
        "until 20:00",
        '{"tool": "set_thermostat", "arguments": {"room": "living_room", "target": 21, "unit": "celsius", "mode": "heat", "until": "20:00"}}',
        BEYOND,
    ),
    (
        "21.0, keys reordered",
        '{"tool": "set_thermostat", "arguments": {"mode": "heat", "room": "living_room", "until": "22:00", "target": 21.0, "unit": "celsius"}}',
        WITHIN,
    ),
)

# ============================================================================ code from coding agents

family(
    "SQL query for dormant accounts",
    [
        "SELECT id, email FROM users WHERE is_active = TRUE AND last_login < NOW() - INTERVAL '90 days' ORDER BY last_login;",
        "SELECT id, email\nFROM users\nWHERE is_active = TRUE\n  AND last_login < NOW() - INTERVAL '90 days'\nORDER BY last_login;",
        "select id, email from users where is_active = true and last_login < now() - interval '90 days' order by last_login;",
        "SELECT u.id, u.email FROM users u WHERE u.is_active = TRUE AND u.last_login < NOW() - INTERVAL '90 days' ORDER BY u.last_login ASC;",
        "SELECT id, email\nFROM users\nWHERE last_login < NOW() - INTERVAL '90 days'\n  AND is_active = TRUE\nORDER BY last_login",
        "-- active accounts with no login in the last 90 days, oldest first\nSELECT id, email FROM users WHERE is_active = TRUE AND last_login < NOW() - INTERVAL '90 days' ORDER BY last_login;",
        "SELECT\n    id,\n    email\nFROM users\nWHERE is_active = TRUE\n  AND last_login < CURRENT_TIMESTAMP - INTERVAL '90 days'\nORDER BY last_login;",
        "SELECT usr.id, usr.email\nFROM users AS usr\nWHERE usr.is_active = TRUE AND usr.last_login < NOW() - INTERVAL '90 days'\nORDER BY usr.last_login;",
        "SELECT id, email FROM users WHERE is_active AND last_login < NOW() - INTERVAL '90 days' ORDER BY last_login ASC;",
    ],
    (
        "another alias, conditions swapped",
        "select acct.id, acct.email\nfrom users as acct\nwhere acct.last_login < now() - interval '90 days' and acct.is_active = true\norder by acct.last_login;",
        WITHIN,
    ),
    (
        "comparison mirrored (hard)",
        "SELECT id, email FROM users WHERE is_active = TRUE AND NOW() - INTERVAL '90 days' > last_login ORDER BY last_login;",
        WITHIN,
    ),
    (
        "> instead of <",
        "SELECT id, email FROM users WHERE is_active = TRUE AND last_login > NOW() - INTERVAL '90 days' ORDER BY last_login;",
        BEYOND,
    ),
    (
        "30 days",
        "SELECT id, email\nFROM users\nWHERE is_active = TRUE\n  AND last_login < NOW() - INTERVAL '30 days'\nORDER BY last_login;",
        BEYOND,
    ),
    (
        "inactive accounts",
        "SELECT id, email FROM users WHERE is_active = FALSE AND last_login < NOW() - INTERVAL '90 days' ORDER BY last_login;",
        BEYOND,
    ),
    (
        "newest first",
        "SELECT id, email FROM users WHERE is_active = TRUE AND last_login < NOW() - INTERVAL '90 days' ORDER BY last_login DESC;",
        BEYOND,
    ),
    (
        "CURRENT_TIMESTAMP, ASC, no semicolon",
        "SELECT id, email FROM users WHERE is_active = true AND last_login < CURRENT_TIMESTAMP - INTERVAL '90 days' ORDER BY last_login ASC",
        WITHIN,
    ),
)

family(
    "Python discount function from a coding agent",
    [
        "def apply_discount(total):\n    return total * 0.85 if total > 100 else total",
        "def apply_discount(total: float) -> float:\n    if total > 100:\n        return total * 0.85\n    return total",
        'def apply_discount(total):\n    """15% off orders over 100."""\n    if total > 100:\n        return total * 0.85\n    return total',
        "def apply_discount(total: float) -> float:\n    return total * 0.85 if total > 100 else total",
        "def apply_discount(total):\n    if total > 100:\n        total = total * 0.85\n    return total",
        'def apply_discount(total: float) -> float:\n    """Apply a 15% discount when the total exceeds 100."""\n    return total * 0.85 if total > 100 else total',
        "DISCOUNT = 0.15\n\n\ndef apply_discount(total):\n    if total > 100:\n        return total * (1 - DISCOUNT)\n    return total",
        "def apply_discount(total):\n    if total <= 100:\n        return total\n    return total * 0.85",
        "def apply_discount(total: float) -> float:\n    # 15% off above 100\n    if total > 100:\n        total *= 0.85\n    return total",
    ],
    (
        "renamed parameter",
        "def apply_discount(amount: float) -> float:\n    return amount * 0.85 if amount > 100 else amount",
        WITHIN,
    ),
    (
        "subtracts the discount (hard)",
        "def apply_discount(total):\n    if total > 100:\n        return total - total * 0.15\n    return total",
        WITHIN,
    ),
    (
        ">= instead of >",
        "def apply_discount(total):\n    return total * 0.85 if total >= 100 else total",
        BEYOND,
    ),
    (
        "returns the discount, not the price",
        "def apply_discount(total: float) -> float:\n    if total > 100:\n        return total * 0.15\n    return total",
        BEYOND,
    ),
    (
        "condition reversed",
        "def apply_discount(total):\n    if total < 100:\n        return total * 0.85\n    return total",
        BEYOND,
    ),
    (
        "20% off",
        'def apply_discount(total: float) -> float:\n    """Apply a 20% discount when the total exceeds 100."""\n    return total * 0.8 if total > 100 else total',
        BEYOND,
    ),
    (
        "early return, renamed",
        "def apply_discount(order_total):\n    if order_total <= 100:\n        return order_total\n    return 0.85 * order_total",
        WITHIN,
    ),
)

family(
    "shell command to delete old logs",
    [
        "find /var/log/app -type f -name '*.log' -mtime +7 -delete",
        'Run `find /var/log/app -type f -name "*.log" -mtime +7 -delete` to remove .log files older than 7 days.',
        "find /var/log/app -name '*.log' -type f -mtime +7 -delete",
        "```bash\n# delete app logs older than a week\nfind /var/log/app -type f -name '*.log' -mtime +7 -delete\n```",
        "This removes every .log file under /var/log/app last modified more than 7 days ago:\n\nfind /var/log/app -type f -name '*.log' -mtime +7 -delete",
        "sudo find /var/log/app -type f -name '*.log' -mtime +7 -delete",
        'find /var/log/app -type f -mtime +7 -name "*.log" -delete',
        "Use: `find /var/log/app -type f -name '*.log' -mtime +7 -delete` (add -print first if you want to preview what gets deleted).",
        "find /var/log/app/ -type f -name '*.log' -mtime +7 -delete",
    ],
    (
        "exec rm instead of -delete (hard)",
        "find /var/log/app -type f -name '*.log' -mtime +7 -exec rm -f {} +",
        WITHIN,
    ),
    (
        "escaped glob, explained",
        "To clear out .log files in /var/log/app that haven't changed in over 7 days:\n\nfind /var/log/app -type f -name \\*.log -mtime +7 -delete",
        WITHIN,
    ),
    (
        "-mtime -7",
        "find /var/log/app -type f -name '*.log' -mtime -7 -delete",
        BEYOND,
    ),
    (
        "all of /var/log",
        'Run `find /var/log -type f -name "*.log" -mtime +7 -delete` to remove .log files older than 7 days.',
        BEYOND,
    ),
    (
        "compressed logs",
        "find /var/log/app -type f -name '*.gz' -mtime +7 -delete",
        BEYOND,
    ),
    (
        "30 days",
        "```bash\n# delete app logs older than a month\nfind /var/log/app -type f -name '*.log' -mtime +30 -delete\n```",
        BEYOND,
    ),
    (
        "xargs (hard)",
        "find /var/log/app -type f -name '*.log' -mtime +7 -print0 | xargs -0 rm -f",
        WITHIN,
    ),
)

family(
    "regex for ISO dates answer",
    [
        "Use `^\\d{4}-\\d{2}-\\d{2}$`: four digits, a hyphen, two digits, a hyphen, two digits, anchored at both ends. It checks the format only, so an impossible date like 2023-02-30 still matches.",
        "The pattern `^\\d{4}-\\d{2}-\\d{2}$` matches YYYY-MM-DD strings exactly (the ^ and $ anchors reject extra text). Note it validates shape, not calendar correctness — 2023-02-30 would pass.",
        "Try `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`. It requires exactly 4 digits, dash, 2 digits, dash, 2 digits with nothing before or after. It won't catch invalid dates such as 2023-02-30.",
        "Regex: `^\\d{4}-\\d{2}-\\d{2}$`\n- `\\d{4}`: year\n- `\\d{2}`: month\n- `\\d{2}`: day\n- `^`/`$`: whole string only\nCaveat: format only; 2023-02-30 matches.",
        "For YYYY-MM-DD use ^\\d{4}-\\d{2}-\\d{2}$. The anchors make it match the entire string. Be aware it doesn't check that the date exists (2023-02-30 passes), so parse it with a date library if you need real validation.",
        "`^\\d{4}-\\d{2}-\\d{2}$` — anchored, so the whole input must be a four-digit year, two-digit month and two-digit day separated by hyphens. It's a format check; 2023-02-30 is accepted even though it's not a real date.",
        "You can use this: ^\\d{4}-\\d{2}-\\d{2}$ . It matches dates like 2024-07-15 and nothing with extra characters. It only checks the format, though; something like 2023-02-30 would still match.",
        "Pattern: `^\\d{4}-\\d{2}-\\d{2}$`. Start and end anchors ensure an exact YYYY-MM-DD match. It does not verify the date is valid — 2023-02-30 slips through.",
        "A simple option is `^\\d{4}-\\d{2}-\\d{2}$` (YYYY-MM-DD, whole string). Keep in mind a regex like this validates the layout only: 2023-02-30 would be accepted.",
    ],
    (
        "character classes, reworded (hard)",
        "Go with ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ — the caret and dollar pin it to the full string, so only a year of four digits, then month and day of two digits each, joined by dashes, gets through. It's purely syntactic: February 30th, 2023 written as 2023-02-30 would be accepted.",
        WITHIN,
    ),
    (
        "short",
        "`^\\d{4}-\\d{2}-\\d{2}$` — exact YYYY-MM-DD, format only (2023-02-30 still matches).",
        WITHIN,
    ),
    (
        "anchors dropped",
        "Use `\\d{4}-\\d{2}-\\d{2}`: four digits, a hyphen, two digits, a hyphen, two digits, found anywhere in the text. It checks the format only, so an impossible date like 2023-02-30 still matches.",
        BEYOND,
    ),
    (
        "slashes",
        "The pattern `^\\d{4}/\\d{2}/\\d{2}$` matches YYYY/MM/DD strings exactly (the ^ and $ anchors reject extra text). Note it validates shape, not calendar correctness — 2023/02/30 would pass.",
        BEYOND,
    ),
    (
        "claims real validation",
        "Use `^\\d{4}-\\d{2}-\\d{2}$`: four digits, a hyphen, two digits, a hyphen, two digits, anchored at both ends. It rejects impossible dates, so 2023-02-30 will not match.",
        BEYOND,
    ),
    (
        "reworded, nonexistent day",
        "Anchored regex for YYYY-MM-DD: `^\\d{4}-\\d{2}-\\d{2}$`. It's a shape-only check — it'll happily accept a nonexistent day like 2023-02-30.",
        WITHIN,
    ),
)

family(
    "pandas revenue by region snippet",
    [
        'sales = df.groupby("region")["revenue"].sum().sort_values(ascending=False)',
        'revenue_by_region = df.groupby("region")["revenue"].sum().sort_values(ascending=False)',
        "top_regions = df.groupby('region')['revenue'].sum().sort_values(ascending=False)",
        '(\n    df.groupby("region")["revenue"]\n    .sum()\n    .sort_values(ascending=False)\n)',
        '# total revenue per region, highest first\ndf.groupby("region")["revenue"].sum().sort_values(ascending=False)',
        'totals = df.groupby("region")["revenue"].sum()\ntotals = totals.sort_values(ascending=False)',
        'regional = df.groupby(by="region")["revenue"].sum().sort_values(ascending=False)',
        "result = (\n    df.groupby('region')['revenue']\n      .sum()\n      .sort_values(ascending=False)\n)",
        'out = df.groupby("region", as_index=True)["revenue"].sum().sort_values(ascending=False)',
    ],
    (
        "agg('sum'), renamed",
        'by_region = df.groupby("region")["revenue"].agg("sum").sort_values(ascending=False)',
        WITHIN,
    ),
    (
        "split over lines, single quotes",
        "grouped = df.groupby('region')\nrevenue = grouped['revenue'].sum()\nrevenue.sort_values(ascending=False)",
        WITHIN,
    ),
    (
        "mean instead of sum",
        'sales = df.groupby("region")["revenue"].mean().sort_values(ascending=False)',
        BEYOND,
    ),
    (
        "ascending",
        'revenue_by_region = df.groupby("region")["revenue"].sum().sort_values(ascending=True)',
        BEYOND,
    ),
    (
        "grouped by country",
        "top_regions = df.groupby('country')['revenue'].sum().sort_values(ascending=False)",
        BEYOND,
    ),
    (
        "attribute access",
        'totals_by_region = df.groupby("region").revenue.sum().sort_values(ascending=False)',
        WITHIN,
    ),
)

family(
    "data deletion request reply",
    [
        "We've received your request to delete your personal data. We'll complete it within 30 days and email you a confirmation when it's done. Please note we must keep your order records for 7 years to comply with tax law; everything else will be erased.",
        "Thanks — your data deletion request is logged. It will be processed within 30 days, and you'll get a confirmation email once it's complete. Order records are retained for 7 years as required by tax law; all other personal data will be deleted.",
        "Your request to erase your personal data has been received. Deletion will be completed within 30 days, followed by a confirmation by email. The one exception: order records, which tax law obliges us to keep for seven years.",
        "- Request: delete personal data (received)\n- Timeline: within 30 days\n- Confirmation: by email when done\n- Kept: order records, 7 years (tax law)\n- Everything else: erased",
        "Hello, we confirm receipt of your deletion request. Within 30 days we will erase your personal data and send you an email confirming it. We're required by tax law to retain order records for 7 years, so those will be kept.",
        "We have your request to delete your data and will carry it out within 30 days, emailing you when finished. Because tax law requires it, your order records will be kept for 7 years; the rest of your personal data will be removed.",
        "Received! We'll delete your personal data within 30 days and confirm by email. Order records are the exception — tax law requires us to hold them for 7 years.",
        "Thank you for your request. All of your personal data except order records will be deleted within 30 days; order records must be retained for 7 years under tax law. We'll send a confirmation email once the deletion is complete.",
        "Your deletion request is being processed and will be completed within 30 days. You'll receive an email confirmation. Note: to meet tax law obligations, order records are retained for seven years, while all other data is erased.",
    ],
    (
        "reworded, purchase history (hard)",
        "Hi, your request for erasure has reached us. Within thirty days every piece of personal information we hold on you will be wiped, save for your purchase records, which tax legislation compels us to store for 7 years. An email will let you know once it's finished.",
        WITHIN,
    ),
    (
        "exception first",
        "Order records stay for 7 years (tax law). Everything else in your personal data will be deleted within 30 days of your request, and we'll email you a confirmation.",
        WITHIN,
    ),
    (
        "90 days",
        "We've received your request to delete your personal data. We'll complete it within 90 days and email you a confirmation when it's done. Please note we must keep your order records for 7 years to comply with tax law; everything else will be erased.",
        BEYOND,
    ),
    (
        "nothing kept",
        "Thanks — your data deletion request is logged. It will be processed within 30 days, and you'll get a confirmation email once it's complete. All of your personal data, including order records, will be deleted.",
        BEYOND,
    ),
    (
        "request refused",
        "We've received your request to delete your personal data. Unfortunately we can't process it, because your account has an open order; please contact us again once the order is closed.",
        BEYOND,
    ),
    (
        "ten years",
        "Received! We'll delete your personal data within 30 days and confirm by email. Order records are the exception — tax law requires us to hold them for 10 years.",
        BEYOND,
    ),
    (
        "bullets reordered",
        "• Kept for 7 years: order records (tax law)\n• Deleted: all other personal data\n• By when: within 30 days\n• You'll get an email confirmation when it's done",
        WITHIN,
    ),
)

# ============================================================================ translations

family(
    "pharmacy notice translated into Italian",
    [
        "La farmacia è chiusa la domenica. Per urgenze rivolgersi alla farmacia di turno in Via Roma 12, aperta 24 ore su 24.",
        "La domenica la farmacia resta chiusa. In caso di urgenza, recarsi alla farmacia di turno di Via Roma 12, aperta 24 ore.",
        "Farmacia chiusa la domenica. Per necessità urgenti: farmacia di turno, Via Roma 12, aperta giorno e notte.",
        "Avviso: la farmacia è chiusa tutte le domeniche. Per le urgenze potete rivolgervi alla farmacia di turno in Via Roma 12, aperta 24 ore su 24.",
        "Si informa che la farmacia è chiusa di domenica. Per urgenze è disponibile la farmacia di turno in Via Roma 12, con apertura 24 ore su 24.",
        "Di domenica siamo chiusi. Per le urgenze andate alla farmacia di turno in Via Roma 12, sempre aperta (24 ore).",
        "La farmacia non apre la domenica. In caso di urgenza rivolgetevi alla farmacia di turno, Via Roma 12, aperta 24h.",
        "Chiuso la domenica. Per urgenze: farmacia di turno in Via Roma 12, aperta 24 ore su 24.",
        "La nostra farmacia è chiusa nei giorni di domenica; per qualsiasi urgenza, la farmacia di turno in Via Roma 12 è aperta 24 ore su 24.",
    ],
    (
        "reworded, emergencies (hard)",
        "La domenica restiamo chiusi: per le emergenze c'è la farmacia di turno di Via Roma 12, aperta ininterrottamente, notte compresa.",
        WITHIN,
    ),
    (
        "telegraphic",
        "Domenica chiuso. Urgenze → farmacia di turno, Via Roma 12 (aperta h24).",
        WITHIN,
    ),
    (
        "Saturday",
        "La farmacia è chiusa il sabato. Per urgenze rivolgersi alla farmacia di turno in Via Roma 12, aperta 24 ore su 24.",
        BEYOND,
    ),
    (
        "another house number",
        "La domenica la farmacia resta chiusa. In caso di urgenza, recarsi alla farmacia di turno di Via Roma 21, aperta 24 ore.",
        BEYOND,
    ),
    (
        "open until midnight",
        "Avviso: la farmacia è chiusa tutte le domeniche. Per le urgenze potete rivolgervi alla farmacia di turno in Via Roma 12, aperta fino alle 24.",
        BEYOND,
    ),
    (
        "formal",
        "Si avvisa la gentile clientela che la domenica la farmacia è chiusa. Per eventuali urgenze è possibile rivolgersi alla farmacia di turno in Via Roma 12, aperta 24 ore su 24.",
        WITHIN,
    ),
)

family(
    "delivery notice translated into Portuguese",
    [
        "Sua encomenda será entregue amanhã entre 9h e 12h. É necessária assinatura no recebimento. Se não houver ninguém em casa, o pacote será deixado no ponto de retirada mais próximo.",
        "Seu pedido chega amanhã, entre 9h e 12h. Será preciso assinar na entrega. Caso você não esteja em casa, deixaremos o pacote no ponto de retirada mais próximo.",
        "A entrega da sua encomenda está prevista para amanhã, das 9h às 12h. A assinatura é obrigatória no recebimento. Na sua ausência, o volume ficará no ponto de coleta mais próximo.",
        "Amanhã, entre 9h e 12h, entregaremos sua encomenda. É preciso assinar ao receber. Se ninguém estiver em casa, o pacote irá para o ponto de retirada mais próximo.",
        "Aviso de entrega: amanhã, 9h–12h. Assinatura necessária. Ausente? O pacote será deixado no ponto de retirada mais próximo.",
        "Informamos que sua encomenda será entregue amanhã entre as 9 e as 12 horas, mediante assinatura. Se você não estiver em casa, ela será deixada no ponto de retirada mais próximo.",
        "Sua encomenda sai para entrega amanhã, com chegada entre 9h e 12h. Alguém precisará assinar o recebimento; se não houver ninguém, deixaremos o pacote no ponto de retirada mais próximo.",
        "Entrega amanhã, das 9h às 12h, com assinatura obrigatória. Caso não haja ninguém em casa, o pacote será levado ao ponto de retirada mais próximo.",
        "O seu pedido será entregue amanhã entre 9h e 12h e exige assinatura no recebimento. Se não estiver em casa, encontrará o pacote no ponto de retirada mais próximo.",
    ],
    (
        "reworded, morning window (hard)",
        "Amanhã de manhã, na janela das 9h ao meio-dia, o entregador passará com o seu pedido, que só pode ser entregue mediante assinatura. Se a casa estiver vazia, a encomenda seguirá para o ponto de retirada mais perto de você.",
        WITHIN,
    ),
    (
        "absence first",
        "Se ninguém estiver em casa, o pacote ficará no ponto de retirada mais próximo. A entrega é amanhã, entre 9h e 12h, e precisa de assinatura.",
        WITHIN,
    ),
    (
        "day after tomorrow",
        "Sua encomenda será entregue depois de amanhã entre 9h e 12h. É necessária assinatura no recebimento. Se não houver ninguém em casa, o pacote será deixado no ponto de retirada mais próximo.",
        BEYOND,
    ),
    (
        "afternoon window",
        "Seu pedido chega amanhã, entre 12h e 15h. Será preciso assinar na entrega. Caso você não esteja em casa, deixaremos o pacote no ponto de retirada mais próximo.",
        BEYOND,
    ),
    (
        "no signature needed",
        "Entrega amanhã, das 9h às 12h, sem necessidade de assinatura. Caso não haja ninguém em casa, o pacote será levado ao ponto de retirada mais próximo.",
        BEYOND,
    ),
    (
        "returned to sender",
        "A entrega da sua encomenda está prevista para amanhã, das 9h às 12h. A assinatura é obrigatória no recebimento. Na sua ausência, o pacote será devolvido ao remetente.",
        BEYOND,
    ),
    (
        "bullets",
        "- Entrega: amanhã, 9h–12h\n- Assinatura obrigatória\n- Sem ninguém em casa: ponto de retirada mais próximo",
        WITHIN,
    ),
)

family(
    "lost luggage reply in French",
    [
        "Votre bagage a été retrouvé à Lyon et sera livré à votre hôtel demain avant 18 h. Aucune démarche n'est nécessaire de votre part. Votre numéro de dossier est LY-48213.",
        "Bonne nouvelle : nous avons retrouvé votre valise à Lyon. Elle vous sera livrée à l'hôtel demain, avant 18 h. Vous n'avez rien à faire. Référence du dossier : LY-48213.",
        "Votre bagage, localisé à Lyon, sera déposé à votre hôtel demain avant 18 heures. Aucune action n'est requise de votre part. Dossier n° LY-48213.",
        "Nous avons le plaisir de vous informer que votre bagage a été retrouvé à Lyon. Il sera livré demain à votre hôtel, avant 18 h, sans aucune démarche de votre part. Numéro de dossier : LY-48213.",
        "Bagage retrouvé à Lyon. Livraison à votre hôtel demain avant 18 h. Rien à faire de votre côté. Dossier LY-48213.",
        "Votre valise a été retrouvée à Lyon ; nous la livrerons à votre hôtel demain avant 18 h. Vous n'avez aucune démarche à effectuer. Votre référence : LY-48213.",
        "Suite à votre déclaration (dossier LY-48213), votre bagage a été retrouvé à Lyon. Il sera apporté à votre hôtel demain avant 18 h ; aucune action de votre part n'est nécessaire.",
        "Votre bagage est à Lyon, où il a été retrouvé, et il arrivera à votre hôtel demain avant 18 h. Inutile de faire quoi que ce soit. Numéro de dossier : LY-48213.",
        "Nous avons retrouvé votre bagage à Lyon. Il vous sera remis à l'hôtel demain avant 18 h. Aucune démarche n'est à prévoir. Dossier : LY-48213.",
    ],
    (
        "reworded, end of afternoon (hard)",
        "Excellente nouvelle : la valise égarée a refait surface à Lyon. Un coursier l'apportera à votre hôtel demain, au plus tard à 18 h, sans que vous ayez à intervenir. Conservez la référence LY-48213.",
        WITHIN,
    ),
    (
        "reference first",
        "Dossier LY-48213 : votre bagage a été retrouvé à Lyon et sera livré demain à votre hôtel avant 18 h. Vous n'avez rien à faire.",
        WITHIN,
    ),
    (
        "found in Nice",
        "Votre bagage a été retrouvé à Nice et sera livré à votre hôtel demain avant 18 h. Aucune démarche n'est nécessaire de votre part. Votre numéro de dossier est LY-48213.",
        BEYOND,
    ),
    (
        "collect at the airport",
        "Bonne nouvelle : nous avons retrouvé votre valise à Lyon. Vous pouvez la récupérer demain au comptoir bagages de l'aéroport, avant 18 h, muni d'une pièce d'identité. Référence du dossier : LY-48213.",
        BEYOND,
    ),
    (
        "after 6 pm",
        "Votre bagage, localisé à Lyon, sera déposé à votre hôtel demain après 18 heures. Aucune action n'est requise de votre part. Dossier n° LY-48213.",
        BEYOND,
    ),
    (
        "not found yet",
        "Votre bagage n'a pas encore été retrouvé ; les recherches se poursuivent à Lyon. Nous vous tiendrons informé. Votre numéro de dossier est LY-48213.",
        BEYOND,
    ),
    (
        "formal, passive",
        "Nous vous informons que votre bagage a été localisé à Lyon. Une livraison à votre hôtel est prévue demain, avant 18 h ; aucune intervention de votre part n'est requise. Référence : LY-48213.",
        WITHIN,
    ),
)

family(
    "clinic appointment reminder in Spanish",
    [
        "Su cita con la Dra. Ruiz es el martes 9 a las 11:15. Por favor, llegue 15 minutos antes y traiga su tarjeta sanitaria. Para cancelar, llame con 24 horas de antelación.",
        "Le recordamos su cita con la Dra. Ruiz el martes 9 a las 11:15. Le rogamos que llegue 15 minutos antes y que traiga la tarjeta sanitaria. Si necesita cancelarla, llámenos con 24 horas de antelación.",
        "Recordatorio: cita con la Dra. Ruiz, martes 9, 11:15 h. Llegue con 15 minutos de antelación y traiga su tarjeta sanitaria. Cancelaciones: por teléfono, con 24 horas de antelación.",
        "Tiene cita con la doctora Ruiz el martes día 9 a las 11:15. Venga 15 minutos antes, con su tarjeta sanitaria. Si no puede acudir, llame al menos 24 horas antes para cancelar.",
        "- Doctora: Dra. Ruiz\n- Fecha: martes 9\n- Hora: 11:15\n- Llegue 15 minutos antes\n- Traiga su tarjeta sanitaria\n- Cancelación: llamar con 24 h de antelación",
        "Estimado paciente: su cita con la Dra. Ruiz será el martes 9 a las 11:15. Le pedimos que llegue un cuarto de hora antes y que traiga su tarjeta sanitaria. Para anularla, llame con 24 horas de antelación.",
        "El martes 9 a las 11:15 tiene su cita con la Dra. Ruiz. Recuerde llegar 15 minutos antes y traer la tarjeta sanitaria. Las cancelaciones deben hacerse por teléfono con 24 horas de antelación.",
        "Le esperamos el martes 9 a las 11:15 para su cita con la Dra. Ruiz. Llegue 15 minutos antes y no olvide su tarjeta sanitaria. Si desea cancelar, llame con un día de antelación (24 horas).",
        "Cita confirmada con la Dra. Ruiz: martes 9 a las 11:15. Preséntese 15 minutos antes con su tarjeta sanitaria. Para cancelar, avise por teléfono con 24 horas de antelación.",
    ],
    (
        "reworded, a day before (hard)",
        "No olvide que la Dra. Ruiz le atenderá el martes 9, a las once y cuarto de la mañana. Conviene presentarse un cuarto de hora antes, con la tarjeta sanitaria en mano. Si tiene que anular la visita, telefonee como mínimo un día antes.",
        WITHIN,
    ),
    (
        "cancellation first",
        "Para cancelar, llame con 24 horas de antelación. Su cita: Dra. Ruiz, martes 9, 11:15; llegue 15 minutos antes con su tarjeta sanitaria.",
        WITHIN,
    ),
    (
        "the 19th",
        "Su cita con la Dra. Ruiz es el martes 19 a las 11:15. Por favor, llegue 15 minutos antes y traiga su tarjeta sanitaria. Para cancelar, llame con 24 horas de antelación.",
        BEYOND,
    ),
    (
        "another doctor",
        "Le recordamos su cita con la Dra. Ortiz el martes 9 a las 11:15. Le rogamos que llegue 15 minutos antes y que traiga la tarjeta sanitaria. Si necesita cancelarla, llámenos con 24 horas de antelación.",
        BEYOND,
    ),
    (
        "30 minutes early",
        "Recordatorio: cita con la Dra. Ruiz, martes 9, 11:15 h. Llegue con 30 minutos de antelación y traiga su tarjeta sanitaria. Cancelaciones: por teléfono, con 24 horas de antelación.",
        BEYOND,
    ),
    (
        "48 hours",
        "Cita confirmada con la Dra. Ruiz: martes 9 a las 11:15. Preséntese 15 minutos antes con su tarjeta sanitaria. Para cancelar, avise por teléfono con 48 horas de antelación.",
        BEYOND,
    ),
    (
        "bullets reordered",
        "- 11:15, martes 9\n- Dra. Ruiz\n- Llegar 15 min antes\n- Tarjeta sanitaria\n- Cancelar: llamar 24 h antes",
        WITHIN,
    ),
)

family(
    "car park notice translated into German",
    [
        "Das Parkhaus schließt um 23 Uhr. Bitte bezahlen Sie Ihr Ticket am Automaten im Erdgeschoss, bevor Sie zu Ihrem Auto gehen. Verlorene Tickets werden mit dem Tagessatz von 25 € berechnet.",
        "Das Parkhaus ist bis 23 Uhr geöffnet. Tickets vor der Rückkehr zum Fahrzeug am Kassenautomaten im Erdgeschoss bezahlen. Bei Verlust des Tickets wird der Tagessatz von 25 € fällig.",
        "Schließzeit: 23 Uhr. Bezahlen Sie Ihr Parkticket am Automaten im Erdgeschoss, bevor Sie zum Wagen zurückkehren. Für verlorene Tickets berechnen wir den Tagessatz (25 €).",
        "Hinweis: Das Parkhaus schließt um 23:00 Uhr. Das Ticket ist am Automaten im Erdgeschoss zu bezahlen, bevor Sie zu Ihrem Auto gehen. Verlorene Tickets: Tagessatz von 25 Euro.",
        "- Schließt um 23 Uhr\n- Ticket am Automaten im Erdgeschoss bezahlen, bevor Sie zum Auto gehen\n- Ticket verloren: Tagessatz 25 €",
        "Bitte beachten Sie: Um 23 Uhr wird das Parkhaus geschlossen. Zahlen Sie Ihr Ticket am Automaten im Erdgeschoss, bevor Sie zu Ihrem Fahrzeug gehen. Wer sein Ticket verliert, zahlt den Tagessatz von 25 €.",
        "Das Parkhaus schließt um 23 Uhr. Vor dem Weg zum Auto bitte am Automaten im Erdgeschoss bezahlen. Ticket verloren? Dann gilt der Tagessatz von 25 €.",
        "Öffnungszeiten: bis 23 Uhr. Parkgebühren am Automaten im Erdgeschoss begleichen, bevor Sie zu Ihrem Auto zurückgehen. Verlorene Tickets werden zum Tagessatz von 25 € abgerechnet.",
        "Um 23 Uhr schließt das Parkhaus. Ihr Ticket bezahlen Sie bitte am Automaten im Erdgeschoss, ehe Sie zu Ihrem Auto gehen. Bei verlorenem Ticket berechnen wir 25 € (Tagessatz).",
    ],
    (
        "reworded, 11 pm (hard)",
        "Ab 23 Uhr ist das Parkhaus zu. Begleichen Sie die Gebühr am Bezahlautomaten im Parterre, noch bevor Sie sich zu Ihrem Wagen begeben. Ist das Ticket abhandengekommen, stellen wir den vollen Tagessatz von 25 Euro in Rechnung.",
        WITHIN,
    ),
    (
        "lost ticket first",
        "Ticket verloren: Tagessatz 25 €. Bezahlung am Automaten im Erdgeschoss, bevor Sie zum Auto gehen. Das Parkhaus schließt um 23 Uhr.",
        WITHIN,
    ),
    (
        "opens instead of closes",
        "Das Parkhaus öffnet um 23 Uhr. Bitte bezahlen Sie Ihr Ticket am Automaten im Erdgeschoss, bevor Sie zu Ihrem Auto gehen. Verlorene Tickets werden mit dem Tagessatz von 25 € berechnet.",
        BEYOND,
    ),
    (
        "basement machine",
        "Das Parkhaus ist bis 23 Uhr geöffnet. Tickets vor der Rückkehr zum Fahrzeug am Kassenautomaten im Untergeschoss bezahlen. Bei Verlust des Tickets wird der Tagessatz von 25 € fällig.",
        BEYOND,
    ),
    (
        "another daily rate",
        "Schließzeit: 23 Uhr. Bezahlen Sie Ihr Parkticket am Automaten im Erdgeschoss, bevor Sie zum Wagen zurückkehren. Für verlorene Tickets berechnen wir den Tagessatz (15 €).",
        BEYOND,
    ),
    (
        "closes at 22",
        "Das Parkhaus schließt um 22 Uhr. Vor dem Weg zum Auto bitte am Automaten im Erdgeschoss bezahlen. Ticket verloren? Dann gilt der Tagessatz von 25 €.",
        BEYOND,
    ),
    (
        "short, EG (hard)",
        "Parkhaus: Schließung 23 Uhr. Ticket vorab am Automaten im EG zahlen. Ticket verloren = Tagessatz 25 €.",
        WITHIN,
    ),
)
