--receive the first message on the queue
receive top(1) conversation_handle,
  message_body from tradeEntryQueue
