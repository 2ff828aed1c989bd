import os
import shutil
import sys

import pytest


@pytest.fixture(scope="session")
def spark():
    """One local Spark for the whole test session (local[2], small data)."""
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.fail("Java 17+ is required for the Spark tests (install openjdk-17-jre-headless)")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from kafka_authz_cli.whatif.spark import spark_session

    session = spark_session("local[2]", "authz-tests", progress=False)
    yield session
    session.stop()
    # Spark's log for this process (the CLI drops its own after a run that did not fail; the tests'
    # session is not the CLI's): else every test run leaves one in the temporary directory.
    from kafka_authz_cli.whatif.spark import spark_log_file

    try:
        os.remove(spark_log_file())
    except OSError:
        pass
