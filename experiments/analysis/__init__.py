"""The analysis of the records: statistics, cell tables, the paper's claims and their qualifiers
(no rendering: experiments.reporting writes what these compute)."""
