__all__ = ['ttypes', 'constants', 'ThriftTest', 'SecondService']
