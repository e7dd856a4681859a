/** In-process game players for tests: no program, no process, no wall. */
import type { PlayerChannel } from '../../src/judging/games/player';

/** A player that answers its first legal action every turn. */
export function firstLegal(): PlayerChannel {
  return {
    async turn(line) {
      const message = JSON.parse(line) as { observation: { legal_actions: unknown[] } };
      return {
        kind: 'line',
        text: JSON.stringify({ action: message.observation.legal_actions[0] }),
        cpuMs: 1,
      };
    },
    close: async () => {},
    stderr: () => '',
    kill: () => {},
  };
}
