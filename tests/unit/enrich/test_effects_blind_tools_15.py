"""The mechanisms blind-tools-15's first run showed open (policies/README.md, "A fifteenth blind batch of the agents'
tools"), each with look-alikes that must stay as they were; spelled otherwise than the corpus's."""

from __future__ import annotations

import pytest

from hookd.enrich.effects.languages import follow_code


@pytest.mark.parametrize(
    ("sql", "reaches"),
    [
        # MySQL and MariaDB run an executable comment's text: a drop or a whole-table delete inside one
        ("/*!32312 DROP DATABASE IF EXISTS*/ `shop`;", True),
        ("SELECT 1; /*!TRUNCATE audit_log*/", True),
        ("/*M!100100 delete from sessions */;", True),
        # a plain comment and an optimizer hint stay inert, and a dump's header of settings reaches nothing
        ("SELECT id FROM users /* drop table users */ WHERE id = 3", False),
        ("SELECT /*+ MAX_EXECUTION_TIME(1000) */ id FROM orders WHERE id = 9", False),
        ("/*!40101 SET NAMES utf8mb4 */;\n/*!40014 SET FOREIGN_KEY_CHECKS=0 */;", False),
    ],
)
def test_an_executable_comment_is_sql(sql: str, reaches: bool) -> None:
    assert follow_code("sql", sql).known is not reaches
