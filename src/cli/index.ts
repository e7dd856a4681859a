/**
 * The CLI, for operators and participants: `npm run -s cli -- <command> [options]` (`help` lists
 * the commands); compiled (`npm run build`): `node dist/src/cli/index.js <command>`.
 *
 * Each area contributes a module under src/cli/commands/ exporting `commands: CliCommand[]`
 * (see src/cli/framework.ts); registering it is one line in COMMAND_MODULES below.
 */
import { extractGlobals, groupCommand, runCli, type CliCommand, type CliModuleLoader } from './framework';

/**
 * A module of commands and the first words of its commands' names: a call loads only the modules
 * its command can be in (each module costs start-up time; the unit test keeps `words` true).
 */
export interface CommandModule {
  words: readonly string[];
  load: CliModuleLoader;
}

export const COMMAND_MODULES: CommandModule[] = [
  { words: ['jwt', 'token'], load: () => import('./commands/auth') },
  { words: ['webhooks'], load: () => import('./commands/webhooks') },
  { words: ['submissions', 'leaderboard'], load: () => import('./commands/submissions') },
  { words: ['agents', 'sessions', 'submit', 'results'], load: () => import('./commands/participant') },
  { words: ['games', 'play'], load: () => import('./commands/games') },
  { words: ['matches', 'ratings'], load: () => import('./commands/matches') },
  { words: ['clarifications', 'submissions', 'leaderboard'], load: () => import('./commands/contests') },
  { words: ['matches'], load: () => import('./commands/match-replays') },
  { words: ['rejudges'], load: () => import('./commands/rejudges') },
  // challenges.ts is one function over the whole group, adapted to a single `challenges` command.
  {
    words: ['challenges'],
    load: () =>
      import('./commands/challenges').then((m) => ({
        commands: [
          groupCommand({
            name: 'challenges',
            summary: 'Operate challenges (admin): list, get, create, update, publish, quarantine, retire',
            usage: m.CHALLENGE_COMMANDS_USAGE,
            flags: m.CHALLENGE_FLAGS,
            run: m.challengeCommands,
          }),
        ],
      })),
  },
];

/**
 * The commands a call can need: those of the modules whose words hold the command's first word;
 * every module for help, no command, or a word no module has (so the error can suggest a name).
 */
export async function loadCommands(
  modules: CommandModule[] = COMMAND_MODULES,
  firstWord?: string,
): Promise<CliCommand[]> {
  const wanted = firstWord === undefined ? [] : modules.filter((m) => m.words.includes(firstWord));
  const loaded = await Promise.all((wanted.length > 0 ? wanted : modules).map((m) => m.load()));
  return loaded.flatMap((m) => m.commands);
}

/** The command's first word after the global options (undefined when there is none to trust). */
export function commandWord(argv: string[]): string | undefined {
  try {
    const first = extractGlobals(argv).rest[0];
    return first === undefined || first === 'help' || first.startsWith('-') ? undefined : first;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  process.exitCode = await runCli(argv, await loadCommands(COMMAND_MODULES, commandWord(argv)));
}

if (require.main === module) {
  main().catch((err) => {
    console.error('error:', err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
