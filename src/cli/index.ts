/**
 * The CLI, for operators and participants: `npm run -s cli -- <command> [options]` (`help` lists
 * the commands); compiled (`npm run build`): `node dist/src/cli/index.js <command>`.
 *
 * Each area contributes a module under src/cli/commands/ exporting `commands: CliCommand[]`
 * (see src/cli/framework.ts); registering it is one line in COMMAND_MODULES below.
 */
import { groupCommand, runCli, type CliCommand, type CliModuleLoader } from './framework';

export const COMMAND_MODULES: CliModuleLoader[] = [
  () => import('./commands/auth'),
  () => import('./commands/webhooks'),
  () => import('./commands/submissions'),
  () => import('./commands/participant'),
  // challenges.ts is one function over the whole group, adapted to a single `challenges` command.
  () =>
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
];

export async function loadCommands(modules: CliModuleLoader[] = COMMAND_MODULES): Promise<CliCommand[]> {
  const loaded = await Promise.all(modules.map((load) => load()));
  return loaded.flatMap((m) => m.commands);
}

async function main(): Promise<void> {
  process.exitCode = await runCli(process.argv.slice(2), await loadCommands());
}

if (require.main === module) {
  main().catch((err) => {
    console.error('error:', err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
