"""Synthetic rules files of realistic shape, for the rules benchmarks."""

import random


def generate(n: int, seed: int = 7) -> str:
    rand = random.Random(seed)
    lines = ["// generated for the authz rules benchmark",
             "from io.kroxylicious.filter.authorization import TopicResource as Topic, GroupResource as Group, "
             "TransactionalIdResource as TransactionalId;"]
    denies = n // 20
    for i in range(n):
        team = f"team{i % 997}"
        user = f"svc-{i}"
        kind = i % 5
        if kind == 0:
            rule = f'allow User with name = "{user}" to {{READ, WRITE}} Topic with name like "{team}.{i}-*";'
        elif kind == 1:
            rule = f'allow User with name in {{"{user}", "{user}-b"}} to READ Group with name = "{team}-g{i}";'
        elif kind == 2:
            rule = f'allow User with name = "{user}" to * Topic with name = "{team}.events-{i}";'
        elif kind == 3:
            rule = f'allow User with name = "{user}" to WRITE TransactionalId with name like "{team}-tx-{i}-*";'
        else:
            rule = f'allow User with name = "{user}" to DESCRIBE Topic with name *;'
        if i < denies:
            rule = f'deny User with name = "{user}-x" to READ Topic with name = "{team}.secret-{rand.randrange(10**6)}";'
        lines.append(rule)
    lines.append("otherwise deny;")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import sys

    sys.stdout.write(generate(int(sys.argv[1])))
