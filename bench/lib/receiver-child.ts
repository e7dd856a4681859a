/**
 * The webhook receiver in a process of its own (startReceiverProcess in ./receiver.ts): answers
 * deliveries on its own event loop and reports each to its parent over IPC. Messages in:
 * `{ type: 'secret', path, secret }`; out: `{ type: 'ready', url }`, `{ type: 'delivery', delivery }`.
 */
import { startReceiver } from './receiver';

void (async () => {
  const receiver = await startReceiver();
  receiver.onDelivery = (delivery) => process.send?.({ type: 'delivery', delivery });
  process.on('message', (message: { type?: string; path?: string; secret?: string }) => {
    if (message.type === 'secret' && message.path && message.secret)
      receiver.secrets.set(message.path, message.secret);
  });
  // The parent gone (killed, crashed): nothing left to report to.
  process.on('disconnect', () => void receiver.close().finally(() => process.exit(0)));
  process.send?.({ type: 'ready', url: receiver.url });
})();
