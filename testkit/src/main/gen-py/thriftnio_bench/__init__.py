__all__ = ['ttypes', 'constants', 'BenchService']
