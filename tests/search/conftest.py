from tests.entity.conftest import labs  # noqa: F401 - the two SharpHound labs, ingested and analysed
