"""Messages between agents: send, acknowledge, read a thread (gridgit.coordination.messages)."""

from __future__ import annotations

from typing import Any

from gridgit.api.base import BoardBase


class MessagesAPI(BoardBase):
    """Messages between agents: send, acknowledge, read a thread; each shared at once under `sync.auto`."""

    def send(self, to: str, content: str, thread: str | None = None, agent: str | None = None) -> Any:
        """Send CONTENT to TO (an agent id, a block id such as 01-02, or @all), in THREAD (a message id or a name).

        A SendResult: the message, and `held` when no registered agent is its addressee (yet).
        """
        from gridgit.coordination import messages

        sent = messages.send(self.layout, self.agent(agent), to, content, thread)
        self._push_soon()
        return sent

    def ack(self, message_id: str, agent: str | None = None) -> Any:
        """Acknowledge message MESSAGE_ID (only an addressee may): an AckResult, `already` when it was acked before."""
        from gridgit.coordination import messages

        acked = messages.ack(self.layout, message_id, self.agent(agent))
        if not acked.already:
            self._push_soon()
        return acked

    def thread(self, ref: str) -> list[Any]:
        """Every message of the thread REF names (any of its messages' ids, or its name), oldest first."""
        from gridgit.coordination import messages

        return messages.thread(self.layout, ref)

    def messages(self, agent: str | None = None, limit: int | None = None) -> list[Any]:
        """With AGENT: the messages to it that it has not acknowledged; else every message (the last LIMIT), oldest first."""
        from gridgit.coordination import mailbox, messages
        from gridgit.errors import BadInput
        from gridgit.model.permissions import check_agent_id

        if limit is not None and limit < 1:
            raise BadInput(f"limit {limit}: must be 1 or more")
        layout = self.layout.require()
        found = messages.unacked_for(layout, check_agent_id(agent)) if agent else mailbox.everything(layout)
        return found[-limit:] if limit else found
