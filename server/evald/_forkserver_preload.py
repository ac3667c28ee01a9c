"""First module the scoring forkserver imports: it then dies with the server that started it."""

from evald.orphans import die_with_parent

die_with_parent()
