"""A 95 % bootstrap interval of a median, shared by the overhead reports (overhead_report.py,
alternate_report.py). The seed is fixed: the same files give the same report."""
import random
import statistics


def median_interval(values, draws=4000):
    """The 2.5th and 97.5th percentiles of the median over resamples of `values`."""
    rng = random.Random(1)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(draws))
    return medians[int(draws * 0.025)], medians[int(draws * 0.975) - 1]
