"""An SMTP server on loopback for the notification tests (aiosmtpd).

Prints "READY <port>" once it listens. Each message it accepts is written to
<dir>/<n>.eml exactly as received (with an X-Envelope-To header added), in the order
received. Before answering, it looks at <dir>/refuse: each line is a reply such as
"451 4.3.0 Try again later" or "550 5.1.1 No such mailbox" given to one message, in
turn, instead of accepting it (the line is used up).

    python3 smtp_sink.py DIR
"""

import os
import socket
import sys

from aiosmtpd.controller import Controller


class Sink:
    def __init__(self, directory):
        self.directory = directory
        self.count = 0

    def refusal(self):
        path = os.path.join(self.directory, "refuse")
        try:
            with open(path) as f:
                lines = [l.strip() for l in f if l.strip()]
        except FileNotFoundError:
            return None
        if not lines:
            return None
        with open(path + ".tmp", "w") as f:
            f.write("".join(l + "\n" for l in lines[1:]))
        os.replace(path + ".tmp", path)
        return lines[0]

    async def handle_DATA(self, server, session, envelope):
        refusal = self.refusal()
        if refusal:
            return refusal
        self.count += 1
        name = os.path.join(self.directory, "%04d.eml" % self.count)
        head = "X-Envelope-To: %s\r\n" % ", ".join(envelope.rcpt_tos)
        data = envelope.original_content or envelope.content
        with open(name + ".tmp", "wb") as f:
            f.write(head.encode() + data)
        os.replace(name + ".tmp", name)
        return "250 OK"


def main():
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    # A free port (aiosmtpd's controller checks its server by connecting to the port
    # it was given, so it needs a real one).
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    controller = Controller(Sink(directory), hostname="127.0.0.1", port=port)
    controller.start()
    print("READY %d" % port, flush=True)
    try:
        # Until the test kills it, or its standard input closes.
        sys.stdin.read()
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
