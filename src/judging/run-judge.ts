import { type JudgeConfig, type JudgeConfigInput, judgeConfigSchema } from './config';
import { InvalidJudgeConfigError } from './errors';
import { runHttpJudge } from './http-judge';
import { runGameJudge } from './game-judge';
import { configForPass } from './private-pass';
import { runProgramJudge } from './program-judge';
import { runRubricJudge } from './rubric-judge';
import { runTestsJudge } from './tests-judge';
import type { JudgeOutcome, JudgeRunOptions, SubmissionForJudging } from './types';

/**
 * Judges one submission. Whatever the submission contains, this resolves with an outcome
 * ('scored', or 'failed' when nothing could be run). It rejects only for problems outside the
 * submission:
 *  - InvalidJudgeConfigError (not retryable): the config does not pass judgeConfigSchema;
 *  - GraderUnavailableError (retryable) / GraderRejectedError (not retryable): `http` judge;
 *  - SandboxUnavailableError (retryable): `tests` or `program` judge could not start a sandbox
 *    process (or this worker lacks the program's language runtime);
 *  - the reason of options.signal when judging is cancelled.
 */
export async function runJudge(
  /** A parsed config, or stored/admin JSON (defaults are applied here). */
  config: JudgeConfig | JudgeConfigInput,
  submission: SubmissionForJudging,
  options: JudgeRunOptions = {},
): Promise<JudgeOutcome> {
  // Configs are stored as JSON; re-validating applies defaults and catches stale shapes.
  const parsed = judgeConfigSchema.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidJudgeConfigError(
      `invalid judge config at ${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
  }
  options.signal?.throwIfAborted();
  // Stored submissions are trusted to match the API schema, but a malformed row must still
  // produce an outcome rather than a crash.
  const normalizedSubmission: SubmissionForJudging = {
    content: typeof submission.content === 'string' ? submission.content : '',
    files: (Array.isArray(submission.files) ? submission.files : []).filter(
      (file) => file !== null && typeof file?.path === 'string' && typeof file.content === 'string',
    ),
    language: typeof submission.language === 'string' ? submission.language : null,
  };
  const judgeConfig = options.pass ? configForPass(parsed.data, options.pass) : parsed.data;
  switch (judgeConfig.kind) {
    case 'rubric':
      return runRubricJudge(judgeConfig, normalizedSubmission);
    case 'tests':
      return runTestsJudge(judgeConfig, normalizedSubmission, options);
    case 'http':
      return runHttpJudge(judgeConfig, normalizedSubmission, options);
    case 'program':
      return runProgramJudge(judgeConfig, normalizedSubmission, options);
    case 'game':
      return runGameJudge(judgeConfig, normalizedSubmission, options);
  }
}
