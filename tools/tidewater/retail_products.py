"""Retail tenant: public product terms (savings, cards, loans, overdrafts, mortgages).

Rates move between versions; the two fixed bonds and the two fixed mortgages are near
duplicates of each other on purpose.
"""

from __future__ import annotations

from tidewater.model import DocSpec, doc, fact

T = "retail"

DOCS: list[DocSpec] = [
    doc(
        T,
        "terms-easy-access-saver",
        "Easy Access Saver: key facts",
        "public",
        """
## Interest
[[eas-rate|The Easy Access Saver pays {rate} AER variable on all balances]], calculated daily
and paid monthly. You can open the account with GBP 1.

## Access
Withdrawals are unlimited and free, online, in the app or in branch. Money reaches your
Tidewater current account instantly.

## Changes to the rate
We give at least 14 days' notice before reducing the rate. You can close the account without
charge during the notice period.
""",
        versions=((280, {"rate": "3.10%"}), (640, {"rate": "3.35%"}), (950, {"rate": "3.05%"})),
        doc_type="product-terms",
        facts={
            "eas-rate": fact(
                "Money in the Easy Access Saver earns a variable {rate} AER.",
                "The Easy Access Saver pays 3.50% AER variable on all balances",
                "What interest does the easy access savings account pay?",
            ),
        },
    ),
    doc(
        T,
        "terms-fixed-bond-1y",
        "One-Year Fixed Rate Bond: key facts",
        "public",
        """
## Interest
[[fb1-rate|The One-Year Fixed Rate Bond pays {rate} AER fixed for 12 months]], with interest
paid on maturity or monthly if you prefer.

## Deposits
[[fb1-min|The minimum deposit for the one-year bond is GBP 1,000 and the maximum is
GBP 500,000.]] You can add
money only in the first 14 days after opening.

## Withdrawals
No withdrawals are allowed before the bond matures. At maturity the money moves to an Easy
Access Saver unless you tell us otherwise.
""",
        versions=((330, {"rate": "4.10%"}), (790, {"rate": "4.25%"})),
        doc_type="product-terms",
        facts={
            "fb1-rate": fact(
                "Our one-year fixed bond earns {rate} AER, locked for the year.",
                "The One-Year Fixed Rate Bond pays 3.85% AER fixed for 12 months",
                "What is the rate on the one-year fixed bond?",
            ),
            "fb1-min": fact(
                "You need at least GBP 1,000 to open the one-year bond, and it takes up to GBP "
                "500,000.",
                "The minimum deposit for the one-year bond is GBP 5,000 and the maximum is GBP "
                "500,000.",
                "What is the minimum deposit for the one-year bond?",
            ),
        },
    ),
    doc(
        T,
        "terms-fixed-bond-2y",
        "Two-Year Fixed Rate Bond: key facts",
        "public",
        """
## Interest
[[fb2-rate|The Two-Year Fixed Rate Bond pays 3.85% AER fixed for 24 months]], with interest
paid on each anniversary or monthly if you prefer.

## Deposits
The minimum deposit is GBP 5,000 and the maximum is GBP 500,000. You can add money only in
the first 14 days after opening.

## Withdrawals
[[fb2-early|Early withdrawal from the Two-Year Fixed Rate Bond is allowed once, with a charge
equal to 180 days' interest on the amount withdrawn.]]
""",
        tick=790,
        doc_type="product-terms",
        facts={
            "fb2-rate": fact(
                "Over two years the fixed bond earns 3.85% AER.",
                "The Two-Year Fixed Rate Bond pays 4.25% AER fixed for 24 months",
                "What does the two-year fixed bond pay?",
            ),
            "fb2-early": fact(
                "You can take money out of the two-year bond early once, losing 180 days' "
                "interest on it.",
                "No withdrawals are allowed before the two-year bond matures.",
                "Can I withdraw early from the two-year fixed bond?",
            ),
        },
    ),
    doc(
        T,
        "terms-regular-saver",
        "Regular Saver: key facts",
        "public",
        """
## Interest
[[rs-rate|The Regular Saver pays 6.00% AER fixed for 12 months on monthly deposits of up to
GBP 300.]]

## Paying in
Pay in between GBP 25 and GBP 300 each calendar month. Missed months cannot be made up later.

## Eligibility
You need a Tidewater Everyday Account to open a Regular Saver. One Regular Saver per customer.
""",
        tick=720,
        doc_type="product-terms",
        facts={
            "rs-rate": fact(
                "Saving up to GBP 300 a month in the Regular Saver earns a fixed 6.00% AER for a "
                "year.",
                "The Regular Saver pays 6.00% AER fixed for 12 months on monthly deposits of up "
                "to GBP 500.",
                "How much can I pay into the Regular Saver each month?",
            ),
        },
    ),
    doc(
        T,
        "terms-cash-isa",
        "Easy Access Cash ISA: key facts",
        "public",
        """
## Interest
[[isa-rate|The Easy Access Cash ISA pays {rate} AER variable, tax-free.]]

## Allowance
You can pay in up to the annual ISA allowance of GBP 20,000 across all your ISAs in a tax year.

## Transfers
[[isa-transfer|ISA transfers in from another provider are completed within 15 business days.]]
Do not withdraw the money yourself, or it will lose its tax-free status.
""",
        versions=((410, {"rate": "3.60%"}), (880, {"rate": "3.40%"})),
        doc_type="product-terms",
        facts={
            "isa-rate": fact(
                "Tax-free interest on the Easy Access Cash ISA is {rate} AER, variable.",
                "The Easy Access Cash ISA pays 3.40% AER fixed, tax-free.",
                "What rate does the cash ISA pay?",
            ),
            "isa-transfer": fact(
                "Moving an ISA to us from another provider takes no more than 15 working days.",
                "ISA transfers in from another provider are completed within 30 business days.",
                "How long does an ISA transfer take?",
            ),
        },
    ),
    doc(
        T,
        "terms-everyday-account",
        "Everyday Account: key facts",
        "public",
        """
## Fees
There is no monthly fee for the Everyday Account. [[ea-abroad|With the Everyday Account, card
purchases and cash withdrawals abroad cost 2.99% of the amount.]]

## Overdraft
An arranged overdraft can be added, subject to status. There is no unarranged overdraft: if
there is not enough money, a payment is declined and no fee is charged.

## Switching
Switch to us with the Current Account Switch Service, completed in seven working days.
""",
        tick=560,
        doc_type="product-terms",
        facts={
            "ea-abroad": fact(
                "Using the Everyday card overseas costs 2.99% of each transaction.",
                "With the Everyday Account, card purchases abroad are free, and cash withdrawals "
                "abroad cost 2.99% of the amount.",
                "What does it cost to use my debit card abroad?",
            ),
        },
    ),
    doc(
        T,
        "terms-premier-account",
        "Premier Account: key facts",
        "public",
        """
## Fees and benefits
[[pa-fee|The Premier Account costs GBP 15 a month]] and includes worldwide family travel
insurance and fee-free spending abroad.

## Eligibility
[[pa-income|To open a Premier Account you need a sole income of at least GBP 75,000 a year]] or
GBP 100,000 in savings and investments with Tidewater.
""",
        tick=610,
        doc_type="product-terms",
        facts={
            "pa-fee": fact(
                "Premier is a packaged account at GBP 15 per month.",
                "The Premier Account costs GBP 25 a month",
                "How much is the Premier Account fee?",
            ),
            "pa-income": fact(
                "Premier requires an individual income of GBP 75,000 or more per year.",
                "To open a Premier Account you need a sole income of at least GBP 50,000 a year",
                "What income do I need for Premier?",
            ),
        },
    ),
    doc(
        T,
        "terms-arranged-overdraft",
        "Arranged overdraft: key facts",
        "public",
        """
## Cost
[[od-rate|Arranged overdrafts are charged at {ear} EAR variable.]] [[od-buffer|The first GBP 50
of an arranged overdraft is interest-free.]]

## Example
If you use an overdraft of GBP 1,200 for 30 days, you pay about GBP {example} in interest.

## Limits
We review arranged overdraft limits every year and may reduce them with 30 days' notice.
""",
        versions=(
            (260, {"ear": "35.9%", "example": "31.20"}),
            (700, {"ear": "39.9%", "example": "34.30"}),
        ),
        doc_type="product-terms",
        facts={
            "od-rate": fact(
                "The arranged overdraft rate is {ear} EAR and can change.",
                "Arranged overdrafts are charged at 29.9% EAR variable.",
                "What is the interest rate on an arranged overdraft?",
            ),
            "od-buffer": fact(
                "No interest is charged on the first GBP 50 of an arranged overdraft.",
                "The first GBP 500 of an arranged overdraft is interest-free.",
                "Is there an interest-free overdraft buffer?",
            ),
        },
    ),
    doc(
        T,
        "terms-platinum-card",
        "Platinum Balance Transfer credit card: key facts",
        "public",
        """
## Balance transfers
[[plat-bt|Balance transfers made within 60 days of opening are at 0% for {months} months, with a
transfer fee of 3.49%.]]

## Standard rate
[[plat-apr|The Platinum card's representative APR is 24.9% variable]] after the promotional period
ends.

## Fees
The late payment fee is GBP 12. There is no annual fee.
""",
        versions=((380, {"months": "24"}), (840, {"months": "27"})),
        doc_type="product-terms",
        facts={
            "plat-bt": fact(
                "Move a balance to the Platinum card in the first 60 days and pay no interest for "
                "{months} months, for a 3.49% fee.",
                "Balance transfers made within 60 days of opening are at 0% for {months} months, "
                "with a transfer fee of 4.49%.",
                "How long is the 0% balance transfer on the Platinum card?",
            ),
            "plat-apr": fact(
                "Once the offer ends, the Platinum card's representative rate is 24.9% APR, "
                "variable.",
                "The Platinum card's representative APR is 29.9% variable",
                "What is the APR on the Platinum card?",
            ),
        },
    ),
    doc(
        T,
        "terms-cashback-card",
        "Cashback credit card: key facts",
        "public",
        """
## Cashback
[[cb-rate|The Cashback card earns 1% cashback on card purchases, up to GBP 100 a year]], paid as a
credit to your card each January.

## Cost
The card costs GBP 3 a month. The representative APR is 27.9% variable.

## What does not earn cashback
Cash withdrawals, balance transfers, gambling transactions and fees do not earn cashback.
""",
        tick=600,
        doc_type="product-terms",
        facts={
            "cb-rate": fact(
                "Spending on the cashback card earns 1% back, capped at GBP 100 per year.",
                "The Cashback card earns 1% cashback on card purchases, with no annual limit",
                "How much cashback can I earn in a year?",
            ),
        },
    ),
    doc(
        T,
        "terms-personal-loan",
        "Personal loan: key facts",
        "public",
        """
## Rates
[[pl-apr|The personal loan representative APR is 6.4% for loans of GBP 7,500 to GBP 25,000
over one to five years.]] Smaller and larger loans have higher rates.

## Repaying early
[[pl-early|You can repay a personal loan early at any time; the early repayment charge is up
to 58 days' interest.]]

## Payment dates
You choose your monthly payment date, which you can change once a year.
""",
        tick=660,
        doc_type="product-terms",
        facts={
            "pl-apr": fact(
                "Borrowing GBP 7,500 to GBP 25,000 for up to five years is at 6.4% APR "
                "representative.",
                "The personal loan representative APR is 6.4% for loans of GBP 1,000 to GBP 7,500 "
                "over one to five years.",
                "What is the APR on a personal loan?",
            ),
            "pl-early": fact(
                "Paying the loan off early costs at most 58 days of interest.",
                "You can repay a personal loan early at any time; the early repayment charge is "
                "up to 28 days' interest.",
                "Is there a charge for paying off my loan early?",
            ),
        },
    ),
    doc(
        T,
        "terms-mortgage-fixed-2y",
        "Two-year fixed rate mortgage: key facts",
        "public",
        """
## Rate
[[m2-rate|The two-year fixed rate is 4.49% for loans up to 75% of the property value.]] It then
reverts to the Tidewater Standard Variable Rate, currently 7.24%.

## Fees
There is a product fee of GBP 999, which can be added to the loan.

## Early repayment charges
[[m2-erc|Early repayment charges on the two-year fixed rate are 2% of the amount repaid in the
first year and 1% in the second year.]] You can overpay up to 10% of the balance each year without
a charge.
""",
        tick=910,
        doc_type="product-terms",
        facts={
            "m2-rate": fact(
                "Up to 75% loan to value, the two-year fix is 4.49%.",
                "The two-year fixed rate is 4.19% for loans up to 75% of the property value.",
                "What is the two-year fixed mortgage rate?",
            ),
            "m2-erc": fact(
                "Repaying the two-year fix early costs 2% in year one and 1% in year two.",
                "Early repayment charges on the two-year fixed rate are 3% of the amount repaid in "
                "the first year and 2% in the second year.",
                "What are the early repayment charges on the two-year fixed mortgage?",
            ),
        },
    ),
    doc(
        T,
        "terms-mortgage-fixed-5y",
        "Five-year fixed rate mortgage: key facts",
        "public",
        """
## Rate
[[m5-rate|The five-year fixed rate is 4.19% for loans up to 75% of the property value.]] It then
reverts to the Tidewater Standard Variable Rate, currently 7.24%.

## Fees
There is a product fee of GBP 999, which can be added to the loan.

## Early repayment charges
[[m5-erc|Early repayment charges on the five-year fixed rate are 5%, 4%, 3%, 2% and 1% of the
amount repaid in years one to five.]] You can overpay up to 10% of the balance each year without a
charge.
""",
        tick=910,
        doc_type="product-terms",
        facts={
            "m5-rate": fact(
                "The five-year fix costs 4.19% up to 75% loan to value.",
                "The five-year fixed rate is 4.49% for loans up to 75% of the property value.",
                "What is the five-year fixed mortgage rate?",
            ),
            "m5-erc": fact(
                "Leaving the five-year fix early costs between 5% and 1% of the repayment, "
                "falling by one point a year.",
                "Early repayment charges on the five-year fixed rate are 2% of the amount repaid "
                "in the first year and 1% in every later year.",
                "What are the early repayment charges on the five-year fixed mortgage?",
            ),
        },
    ),
    doc(
        T,
        "terms-mortgage-tracker",
        "Lifetime tracker mortgage: key facts",
        "public",
        """
## Rate
[[mt-rate|The lifetime tracker rate is Bank Rate plus 0.79% for the whole term]], for loans up
to 60% of the property value.

## Early repayment
[[mt-erc|There are no early repayment charges on the lifetime tracker.]]

## Rate floor
The rate can never fall below 0.79%.
""",
        tick=540,
        doc_type="product-terms",
        facts={
            "mt-rate": fact(
                "Our lifetime tracker follows Bank Rate with a 0.79% margin for the full term.",
                "The lifetime tracker rate is Bank Rate plus 1.79% for the whole term",
                "How is the tracker mortgage rate set?",
            ),
            "mt-erc": fact(
                "You can pay off the lifetime tracker early without any charge.",
                "Early repayment charges of 1% apply to the lifetime tracker.",
                "Can I repay the tracker mortgage early without a penalty?",
            ),
        },
    ),
]
