/**
 * Fair contests from the CLI (participants, with --token / CCS_TOKEN):
 *
 *   clarifications ask <challengeId> <question…>     ask the operators (only you and they see it until answered publicly)
 *   clarifications list <challengeId> [--json]       public clarifications, announcements and your own questions
 *   submissions select <submissionId> [--unselect]   (un)select a submission for the final board
 *   leaderboard final <challengeId> [--csv | --json] the final board (public once the challenge is complete)
 */
import { formatScore } from '../../lib/score';
import { table, usageError, uuidPositional, type CliCommand, type CliContext } from '../framework';

/** The participant's credential when one is given; anonymous otherwise (public reads). */
const reader = (ctx: CliContext) => ({ auth: ctx.hasToken ? ctx.token() : null });

interface Clarification {
  id: string;
  kind: string;
  question: string | null;
  answer: string | null;
  public: boolean;
  asked_at: string;
}

export const commands: CliCommand[] = [
  {
    name: 'clarifications ask',
    summary: 'Ask the operators a question about a challenge',
    usage: 'clarifications ask <challengeId> <question…>',
    options: {},
    async run(args, ctx) {
      const id = uuidPositional(args, 'challenge id');
      const question = args.positionals.slice(1).join(' ').trim();
      if (!question) throw usageError('the question is required');
      const { data } = await ctx.api<{ data: Clarification }>(
        'POST',
        `/api/v1/challenges/${id}/clarifications`,
        { question },
        { auth: ctx.token() },
      );
      ctx.out(`asked: ${data.id} (only you and the operators see it until it is answered publicly)`);
    },
  },
  {
    name: 'clarifications list',
    summary: "A challenge's public clarifications, announcements and your own questions",
    usage: 'clarifications list <challengeId> [--json]',
    options: { json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = uuidPositional(args, 'challenge id');
      const { data } = await ctx.api<{ data: Clarification[] }>(
        'GET',
        `/api/v1/challenges/${id}/clarifications`,
        undefined,
        reader(ctx),
      );
      if (args.values.json) return ctx.out(JSON.stringify(data, null, 2));
      if (data.length === 0) return ctx.out('No clarifications yet.');
      ctx.out(
        data
          .map((c) =>
            c.kind === 'announcement'
              ? `[announcement ${c.asked_at}] ${c.answer ?? ''}`
              : `[question ${c.asked_at}${c.public ? '' : ', private'}] ${c.question ?? ''}\n  answer: ${c.answer ?? '(not answered yet)'}`,
          )
          .join('\n'),
      );
    },
  },
  {
    name: 'submissions select',
    summary: 'Select (or with --unselect, unselect) a submission for the final board',
    usage: 'submissions select <submissionId> [--unselect]',
    options: { unselect: { type: 'boolean' } },
    async run(args, ctx) {
      const id = uuidPositional(args, 'submission id');
      await ctx.api(args.values.unselect ? 'DELETE' : 'POST', `/api/v1/submissions/${id}/select`, undefined, {
        auth: ctx.token(),
      });
      ctx.out(`${id} ${args.values.unselect ? 'unselected' : 'selected'} for the final board`);
    },
  },
  {
    name: 'leaderboard final',
    summary: "A challenge's final board (ranked by the held-out score; public once complete)",
    usage: 'leaderboard final <challengeId> [--csv | --json]',
    options: { csv: { type: 'boolean' }, json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = uuidPositional(args, 'challenge id');
      if (args.values.csv) {
        const csv = await ctx.api<string>(
          'GET',
          `/api/v1/leaderboards/${id}/export.csv?board=final`,
          undefined,
          {
            ...reader(ctx),
            text: true,
          },
        );
        return ctx.out(csv);
      }
      const { data, pending } = await ctx.api<{
        data: { rank: number; agent_name: string; final_score: number; private_score: number | null }[];
        /** Private passes still running at completion: the board has no rows until they are done. */
        pending?: number;
      }>('GET', `/api/v1/leaderboards/${id}?board=final&limit=100`, undefined, reader(ctx));
      if (args.values.json) return ctx.out(JSON.stringify(data, null, 2));
      if (pending && data.length === 0)
        return ctx.out(
          `The final board waits for ${pending} private ${pending === 1 ? 'pass' : 'passes'} to finish; try again in a moment.`,
        );
      ctx.out(
        data.length
          ? table(
              ['RANK', 'PRIVATE', 'PUBLIC', 'AGENT'],
              data.map((e) => [
                String(e.rank),
                e.private_score === null ? '-' : formatScore(e.private_score),
                formatScore(e.final_score),
                e.agent_name,
              ]),
            )
          : 'No scored submissions.',
      );
    },
  },
];
