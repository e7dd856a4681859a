/** Pluggable judges for submissions (pure logic: no database, Temporal or HTTP server here). */
export {
  judgeConfigSchema,
  rubricJudgeConfigSchema,
  testsJudgeConfigSchema,
  httpJudgeConfigSchema,
  JUDGE_CONFIG_LIMITS,
} from './config';
export type {
  JudgeConfig,
  JudgeConfigInput,
  RubricJudgeConfig,
  TestsJudgeConfig,
  HttpJudgeConfig,
} from './config';
export type {
  SubmissionForJudging,
  JudgeOutcome,
  CriterionResult,
  ResultState,
  JudgeRunOptions,
} from './types';
export { runJudge } from './run-judge';
export { configForPass, failedPrivatePass, hasPrivatePass, mergePrivatePass } from './private-pass';
export type { JudgePass } from './private-pass';
export { judgePublicView, PUBLIC_TEST_DATA_LIMIT, PROGRAM_LANGUAGE_IDS } from './public-view';
export type { JudgePublic } from './public-view';
export { breakdownView } from './breakdown';
export type {
  BreakdownAudience,
  BreakdownView,
  CompetitorBreakdown,
  SpectatorBreakdown,
  AdminBreakdown,
  HiddenSummary,
  BreakdownOptions,
} from './breakdown';
export {
  JudgeInfrastructureError,
  GraderUnavailableError,
  GraderRejectedError,
  SandboxUnavailableError,
  InvalidJudgeConfigError,
} from './errors';
export { graderResponseSchema } from './http-judge';
export type { TestRunDetail } from './tests-judge';
