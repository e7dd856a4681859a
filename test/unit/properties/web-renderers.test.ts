/**
 * Every page renderer, fed hostile strings (property-based): markup injection, attribute breakouts,
 * quotes, ampersands, unicode edge cases and very long values go into EVERY string input of every
 * renderer at once. Pages are escaped by construction (src/web/html.ts); this checks it holds:
 *
 *   1. the hostile payload never appears verbatim in the page;
 *   2. the page's elements and attributes (its tag and attribute names, in order) are exactly those
 *      of the same page rendered with a plain string of the same length: no `<script>`, `<img>` or
 *      `onerror=` can be added by data, so the number of `<script` tags is the page's own;
 *   3. with plain strings, nothing is escaped twice (no `&amp;lt;`) and no markup of our own shows
 *      as text (`&lt;`): a markup string that slipped past `html` would.
 *
 * Reproduce a failure with the printed seed: FC_SEED=<seed> npx jest test/unit/properties/web-renderers.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import {
  renderAgentsPage,
  renderHistoryPage,
  renderSubmissionPage,
  renderTakePartPage,
  renderTokensPage,
} from '../../../src/api/pages/accounts/view';
import { NEW_CHALLENGE_VALUES, renderChallengeFormPage } from '../../../src/api/pages/challenges/form';
import { renderConfirmPage, renderConsoleHome } from '../../../src/api/pages/console/view';
import { renderChallengeListPage } from '../../../src/api/pages/challenges/console-view';
import {
  renderAdminSubmissionPage,
  renderChallengeSubmissionsPage,
} from '../../../src/api/pages/submissions/console-view';
import { renderAuditPage } from '../../../src/api/pages/audit/console-view';
import {
  renderAdminDeliveriesPage,
  renderDeliveryPage,
  renderMyWebhookPage,
  renderMyWebhooksPage,
  renderReplayOutcomePage,
} from '../../../src/api/pages/webhooks/view';
import { renderErrorPage } from '../../../src/web/error-page';
import type { HeaderAccount, RenderedPage } from '../../../src/web/layout';
import { renderChallengePage, renderHomePage } from '../../../src/api/pages/challenges/view';
import {
  renderEmbeddedProviderSignIn,
  renderMessagePage,
  renderSignInOffPage,
  renderUnsentFormPage,
} from '../../../src/api/pages/accounts/sign-in-view';
import { renderWatchPage } from '../../../src/api/pages/connector/watch-view';
import {
  renderAgentPage,
  renderLadderPage,
  renderMatchPage,
  renderStderrPanelPart,
} from '../../../src/api/pages/matches/view';
import { renderExhibitionPage } from '../../../src/api/pages/matches/console-view';
import { renderGamePage, renderGamesPage } from '../../../src/api/pages/games/view';
import { renderClarificationsConsole } from '../../../src/api/pages/contests/console-view';
import {
  renderRejudgeConfirmPage,
  renderRejudgeProgressPage,
} from '../../../src/api/pages/challenges/rejudge-view';
import type { MatchView } from '../../../src/domain/matches/views';
import type { MatchBoardEntry } from '../../../src/domain/matches/board';
import { NASTY_STRINGS } from '../../helpers/arbitraries';

const SEED = Number(process.env.FC_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.FC_RUNS ?? 40);

const AT = new Date('2025-06-01T12:00:00Z');
const LATER = new Date('2025-06-02T12:00:00Z');
/** The pages' hold of match outcomes (domain/matches/hold.ts), over for the matches completed at LATER. */
const AFTER_HOLD = { viewer: { atOnce: false }, now: new Date(LATER.getTime() + 60_000), delayMs: 30_000 };

/** The renderers, each building its whole input from one string `s` (put in every string field). */
const RENDERERS: Record<string, (s: string) => RenderedPage> = {
  home: (s) =>
    renderHomePage({
      rows: [{ ...challengeRow(s), entry_count: 2 }],
      total: 30,
      limit: 10,
      filters: { status: 'active', category: s, format: s, page: 2 },
      now: AT,
      account: account(s),
    }),
  challengeRubric: (s) =>
    challengePage(s, { kind: 'rubric', criteria: [criterion(s), { ...criterion(s), hidden: true }] }),
  challengeTests: (s) =>
    challengePage(s, {
      kind: 'tests',
      tests: [
        { name: s, export: s, args: [s, 1], expected: s },
        { name: s, export: s, args: [], expected: s, hidden: true },
      ],
    }),
  challengeProgram: (s) =>
    challengePage(s, {
      kind: 'program',
      languages: [s, 'python'],
      compare: s,
      tests: [{ name: s, stdin: s, expected_stdout: s }],
    }),
  challengeOther: (s) => challengePage(s, { kind: s }),
  message: (s) =>
    renderMessagePage({ title: s, message: s, next: { href: s, label: s }, account: account(s) }),
  embeddedSignIn: (s) =>
    renderEmbeddedProviderSignIn({ action: s, accounts: [{ sub: s, name: s }], error: s }),
  error: (s) =>
    renderErrorPage({
      status: 404,
      title: s,
      text: s,
      detail: s,
      requestId: s,
      retryAfterSec: 3,
      account: account(s),
      back: { href: s, label: s },
    }),
  signedOutHeader: (s) =>
    renderErrorPage({ status: 403, title: s, account: { signedIn: null, returnTo: s } }),
  agents: (s) =>
    renderAgentsPage({
      agents: [
        {
          agent: agentRow(s),
          keys: [
            {
              id: s,
              agent_id: s,
              key_prefix: s,
              expires_at: LATER,
              revoked_at: null,
              last_used_at: AT,
              created_at: AT,
            },
          ],
        },
      ],
      csrfToken: s,
      account: account(s),
      shown: { what: s, secret: s, note: s, kept: s },
      now: AT,
    }),
  tokens: (s) =>
    renderTokensPage({
      tokens: [
        {
          id: s,
          user_id: s,
          agent_id: s,
          name: s,
          token_prefix: s,
          scopes: [s, s],
          sandbox: false,
          last_used_at: AT,
          expires_at: LATER,
          revoked_at: null,
          created_at: AT,
        },
      ],
      agents: [agentRow(s)],
      scopes: [s],
      csrfToken: s,
      account: account(s),
      shown: { what: s, secret: s, note: s },
    }),
  takePart: (s) =>
    renderTakePartPage({
      challenge: { id: s, title: s, format: s },
      agents: [agentRow(s), { ...agentRow(s), id: `${s}2` }],
      enteredAgentIds: new Set([s]),
      judge: { kind: s, languages: [s], entry: s },
      fileSlots: 2,
      sizeLimitBytes: 2 * 1024 * 1024,
      submissionsLeft: new Map([[s, { session: 1, day: 2, day_resets_at: AT.toISOString() }]]),
      csrfToken: s,
      account: account(s),
    }),
  submissionRunning: (s) => submissionPage(s, 'judging'),
  submissionDone: (s) => submissionPage(s, 'complete'),
  history: (s) =>
    renderHistoryPage({
      rows: [
        {
          id: s,
          challenge_id: s,
          challenge_title: s,
          agent_name: s,
          status: s,
          final_score: 12.5,
          created_at: AT,
        },
      ],
      filters: { status: s, challenge_id: s },
      challenges: [{ id: s, title: s }],
      nextCursor: s,
      account: account(s),
    }),
  challengeForm: (s) =>
    renderChallengeFormPage({
      challenge: {
        id: s,
        title: s,
        status: s,
        format: s,
        quarantine_reason: s,
        published_at: AT,
        quarantined_at: AT,
        retired_at: null,
        updated_at: AT,
      },
      values: Object.fromEntries(Object.keys(NEW_CHALLENGE_VALUES).map((k) => [k, s])),
      errors: { title: [s, s], judge: [s], sample: [s], [s]: [s], '': [s] },
      notice: s,
      dryRun: {
        ok: true,
        workflowId: s,
        breakdown: {
          audience: 'admin',
          final_score: 50,
          result_state: 'scored',
          hidden_summary: { hidden_passed: 0, hidden_total: 1 },
          summary: s,
          criteria: [{ name: s, weight: 1, score: 50, passed: false, feedback: s, hidden: true }],
          details: { [s]: s },
        },
      },
      csrfToken: s,
      account: account(s),
    }),
  challengeFormDryRunFailed: (s) =>
    renderChallengeFormPage({
      challenge: null,
      values: { ...NEW_CHALLENGE_VALUES, title: s, judge: s },
      errors: {},
      dryRun: { ok: false, message: s },
      csrfToken: s,
      account: account(s),
    }),
  consoleHome: (s) => renderConsoleHome({ counts: [{ status: s, count: 3 }], account: account(s) }),
  challengeList: (s) =>
    renderChallengeListPage({
      rows: [
        {
          id: s,
          title: s,
          status: s,
          category: s,
          judgeKind: s,
          entryCount: 1,
          startsAt: AT,
          endsAt: null,
          updatedAt: AT,
        },
      ],
      statuses: [s, 'draft'],
      status: s,
      page: 2,
      hasMore: true,
      notice: s,
      account: account(s),
    }),
  confirm: (s) =>
    renderConfirmPage({
      title: s,
      explanation: s,
      action: s,
      confirmLabel: s,
      cancelHref: s,
      csrfToken: s,
      account: account(s),
      reason: { value: s, error: s },
    }),
  exhibition: (s) =>
    renderExhibitionPage({
      challenge: { id: s, title: s },
      players: 2,
      candidates: [{ agent_id: s, agent_name: s }],
      picked: new Set([s]),
      rated: true,
      error: s,
      csrfToken: s,
      account: account(s),
    }),
  challengeSubmissions: (s) =>
    renderChallengeSubmissionsPage({
      challenge: { id: s, title: s, status: s },
      rows: [
        {
          id: s,
          agentId: s,
          agentName: s,
          status: s,
          score: 40,
          privateScore: 50,
          privateState: s,
          run: 2,
          sandbox: true,
          createdAt: AT,
        },
      ],
      filters: { status: s, agent_id: `${s}x`, min_score: 1, max_score: 99 },
      statuses: [s],
      agents: [{ id: s, name: s }],
      nextCursor: s,
      limit: 5,
      account: account(s),
    }),
  adminSubmission: (s) =>
    renderAdminSubmissionPage({
      submission: {
        id: s,
        status: s,
        challenge_id: s,
        agent_id: s,
        judge_run: 1,
        sandbox: true,
        created_at: AT,
        failure_reason: s,
      },
      challengeTitle: s,
      agentName: s,
      ownerSubject: s,
      result: { final_score: 75, result_state: s, summary: s, judged_at: AT },
      breakdown: { [s]: [s] },
      workflowId: s,
      workflowUrl: s,
      canRejudge: true,
      notice: s,
      account: account(s),
    }),
  audit: (s) =>
    renderAuditPage({
      rows: [
        { id: s, actor: s, action: s, target_type: 'challenge', target_id: s, at: AT, detail: { [s]: s } },
        { id: s, actor: s, action: s, target_type: s, target_id: s, at: AT, detail: {} },
      ],
      actions: [s],
      filters: { action: s, actor: s, since: s },
      nextCursor: s,
      limit: 5,
      account: account(s),
    }),
  adminDeliveries: (s) =>
    renderAdminDeliveriesPage({
      rows: [deliveryRow(s)],
      filters: { status: 'dead_letter', subscription_id: s, event_type: s, since: s },
      eventTypes: [s],
      nextCursor: s,
      panel: { subscription: subscriptionRow(s), defaultSince: s },
      csrfToken: s,
      account: account(s),
    }),
  delivery: (s) =>
    renderDeliveryPage({
      delivery: {
        id: s,
        event_type: s,
        status: 'dead_letter',
        series: 1,
        body: JSON.stringify({ [s]: s }),
        created_at: AT,
        delivered_at: AT,
        dead_lettered_at: AT,
      },
      subscription: { ...subscriptionRow(s), status: 'disabled' },
      attempts: [attempt(s, 0), attempt(s, 1)],
      replayAction: s,
      back: { href: s, label: s },
      notice: { text: s, ok: false },
      csrfToken: s,
      account: account(s),
    }),
  deliveryRawBody: (s) =>
    renderDeliveryPage({
      delivery: {
        id: s,
        event_type: s,
        status: 'delivered',
        series: 0,
        body: s,
        created_at: AT,
        delivered_at: null,
        dead_lettered_at: null,
      },
      subscription: subscriptionRow(s),
      attempts: [],
      replayAction: '/admin/x',
      back: { href: s, label: s },
      csrfToken: s,
      account: account(s),
    }),
  replayOutcome: (s) =>
    renderReplayOutcomePage({
      title: s,
      replayed: [{ id: s, status: 'pending' }],
      truncated: true,
      back: { href: s, label: s },
      account: account(s),
    }),
  myWebhooks: (s) =>
    renderMyWebhooksPage({
      subscriptions: [subscriptionRow(s)],
      eventTypes: [s],
      shown: { what: s, secret: s, note: s },
      csrfToken: s,
      account: account(s),
    }),
  myWebhook: (s) =>
    renderMyWebhookPage({
      subscription: { ...subscriptionRow(s), disabled_reason: s },
      rows: [deliveryRow(s)],
      filters: { status: 'retrying' },
      nextCursor: s,
      notice: { text: s, ok: true },
      csrfToken: s,
      account: account(s),
    }),
  watch: (s) => renderWatchPage({ challengeId: s, title: s, status: s, delayMs: 5000 }),
  challengeGame: (s) =>
    challengePage(
      s,
      {
        kind: 'game',
        game: s,
        turn_ms: 500,
        bank_ms: 5000,
        memory_mb: 64,
        games_per_match: 2,
        languages: [s],
      },
      [matchView(s, 'complete'), matchView(s, 'scheduled')],
      [0, 1].map((i) => ({
        rank: i + 1,
        agent_id: `${s}${i}`,
        agent_name: s,
        best_score: i === 0 ? 100 : null,
        best_submission_id: i === 0 ? s : null,
        submission_count: 1 - i,
        last_submitted_at: i === 0 ? AT.toISOString() : null,
        rating: { mu: 25 + i, sigma: 8, ordinal: 1 - i },
        matches: 2,
        wins: 1,
        draws: 0,
        losses: 1,
        provisional: i === 1,
      })),
    ),
  challengeGameNoMatches: (s) => challengePage(s, { kind: 'game', game: s }, []),
  challengeMatchesOperator: (s) =>
    renderChallengePage({
      recentMatches: [matchView(s, 'running'), matchView(`${s}1`, 'complete')],
      voidableMatches: new Set([s]),
      matchHold: AFTER_HOLD,
      challenge: { ...challengeRow(s), judge: { kind: 'game', game: s } },
      entries: [],
      hasMore: false,
      baseUrl: s,
      now: AT,
      account: account(s),
    }),
  stderrPanelPart: (s) =>
    renderStderrPanelPart({
      match: matchView(s, 'complete'),
      hold: AFTER_HOLD,
      readsLogs: true,
      logs: [
        {
          agent_id: s,
          agent_name: s,
          seat: 1,
          games: [{ game: 1, seat: 1, stderr: s, fault: { kind: s, turn: 1, reason: s } }],
        },
      ],
    }),
  matchBout: (s) =>
    renderMatchPage({
      match: { ...matchView(s, 'complete'), kind: 'bout' },
      hold: AFTER_HOLD,
      challengeTitle: s,
      delayMs: 30_000,
      now: AT,
      account: account(s),
    }),
  matchGameUnrevealed: (s) =>
    renderMatchPage({
      match: matchView(s, 'running'),
      hold: AFTER_HOLD,
      challengeTitle: s,
      delayMs: 30_000,
      now: AT,
      account: account(s),
    }),
  agentMatches: (s) =>
    renderAgentPage({
      agentId: `${s}0`,
      agentName: s,
      matches: [matchView(s, 'complete')],
      hold: AFTER_HOLD,
      account: account(s),
    }),
  ladder: (s) =>
    renderLadderPage({
      weightClassId: s,
      rows: [
        {
          rank: 1,
          agent_id: s,
          agent_name: s,
          mu: 27,
          sigma: 7,
          ordinal: 6,
          matches: 3,
          wins: 2,
          draws: 0,
          losses: 1,
          provisional: true,
          last_match_at: s,
        },
      ],
      account: account(s),
    }),
  games: (s) =>
    renderGamesPage({
      games: [{ id: s, name: s, players: { min: 2, max: 4 }, simultaneous: true, description: s }],
      account: account(s),
    }),
  game: (s) => {
    // The rules are Markdown, so their structure is their content: the hostile text goes into a
    // heading, a paragraph and a list item (without the backticks and line breaks that would add
    // code spans or blocks of its own; markdownLite's unit test covers those).
    const md = s.replace(/[`\r\n]/g, ' ');
    return renderGamePage({
      game: {
        id: s,
        name: s,
        players: { min: 2, max: 2 },
        simultaneous: false,
        description: s,
        rules: `# ${md}\n\n${md}\n\n- ${md}\n- \`${md}\``,
        max_turns: 42,
        observation_schema: { [s]: s },
        action_schema: { type: s },
        boss: { language: s, file: s, source: s },
      },
      account: account(s),
    });
  },
  clarificationsConsole: (s) =>
    renderClarificationsConsole({
      unanswered: [
        {
          id: s,
          challenge_id: s,
          kind: 'question',
          question: s,
          answer: null,
          public: false,
          asked_by: s,
          answered_by: null,
          asked_at: AT,
          answered_at: null,
          challenge_title: s,
        },
      ],
      announcement: {
        challenges: [{ id: s, title: s, status: s }],
        challengeId: s,
        text: s,
        errors: { text: s },
      },
      csrfToken: s,
      notice: s,
      account: account(s),
    }),
  rejudgeConfirm: (s) => rejudgeConfirm(s, { runningId: null, error: s }),
  rejudgeRunning: (s) => rejudgeConfirm(s, { runningId: s }),
  rejudgeProgress: (s) =>
    renderRejudgeProgressPage({
      challenge: { id: s, title: s },
      rejudge: {
        id: s,
        status: 'running',
        count: 2,
        done: 1,
        statuses: [s],
        requestedAt: AT,
        finishedAt: null,
        items: [
          {
            submissionId: s,
            agentName: s,
            oldScore: 50,
            newScore: 75,
            oldPrivate: 10,
            newPrivate: 20,
            done: true,
          },
          {
            submissionId: s,
            agentName: s,
            oldScore: 50,
            newScore: null,
            oldPrivate: null,
            newPrivate: null,
            done: false,
          },
        ],
      },
      account: account(s),
    }),
  signInOff: () => renderSignInOffPage(),
  unsentForm: (s) =>
    renderUnsentFormPage({
      stash: { action: s, page: s, fields: [[s, s]], had_files: true, created_at: AT },
      csrfToken: s,
      account: account(s),
    }),
  unsentFormDescribed: (s) =>
    renderUnsentFormPage({
      stash: { action: s, page: s, fields: [[s, s]], had_files: true, created_at: AT },
      described: {
        title: s,
        submit: s,
        facts: [{ label: s, value: s }],
        fields: (['line', 'text', 'number', 'datetime', 'checks', 'check', 'fixed'] as const).map((kind) => ({
          name: s,
          label: s,
          kind,
          values: [s],
          options: [{ value: s, label: s }],
          shown: s,
        })),
        hidden: [[s, s]],
      },
      csrfToken: s,
      account: account(s),
    }),
  unsentFormGone: (s) => renderUnsentFormPage({ stash: null, csrfToken: s, account: account(s) }),
};

/**
 * Renderers left out of RENDERERS, each with why: the guard below fails on any other exported
 * page renderer, so a new page cannot skip this property.
 */
const NOT_FED: Record<string, string> = {
  renderPage: 'the shell every renderer above calls (its title, body and account are fed through them)',
  renderEmbeddedProviderSignOut:
    "its `form` is the development OpenID provider's own logout form, inserted raw by design (the provider's markup, never a user's text)",
};

function rejudgeConfirm(s: string, state: { runningId: string | null; error?: string }) {
  return renderRejudgeConfirmPage({
    challenge: { id: s, title: s },
    counts: { complete: 3, failed: 1 },
    ...state,
    csrfToken: s,
    account: account(s),
  });
}

function matchView(s: string, status: MatchView['status']): MatchView {
  const participant = (seat: number) => ({
    agent_id: `${s}${seat - 1}`,
    agent_name: s,
    seat,
    submission_id: s,
    score: status === 'complete' ? 50 : null,
    rank: status === 'complete' ? seat : null,
    outcome: status === 'complete' ? (seat === 1 ? ('win' as const) : ('loss' as const)) : null,
    rating_before: { mu: 25, sigma: 8.3, ordinal: 0 },
    rating_after: status === 'complete' ? { mu: 26, sigma: 8, ordinal: 2 } : null,
  });
  return {
    id: s,
    challenge_id: s,
    weight_class_id: s,
    kind: 'game',
    status,
    rated: true,
    reason: s,
    participants: [participant(1), participant(2)],
    scheduled_at: AT.toISOString(),
    started_at: AT.toISOString(),
    ends_at: LATER.toISOString(),
    completed_at: status === 'complete' ? LATER.toISOString() : null,
    result_id: s,
  };
}

function account(s: string): HeaderAccount {
  return { signedIn: { name: s, csrfToken: s, operator: true }, returnTo: s };
}

function challengeRow(s: string) {
  return {
    id: s,
    title: s,
    description: s,
    category: s,
    format: s,
    weight_class_id: s,
    status: 'active' as const,
    time_limit_minutes: 30,
    entry_fee_cents: null,
    prize_pool: null,
    starts_at: AT,
    ends_at: LATER,
    is_featured: false,
    is_daily: false,
    judge: {},
    max_submissions_per_session: 5,
    max_submissions_per_day: 10,
    final_submissions: 2,
    freeze_minutes: 0,
    quarantine_reason: null,
    created_by: s,
    created_at: AT,
    updated_at: AT,
    started_event_at: null,
    ended_event_at: null,
    published_at: AT,
    quarantined_at: null,
    retired_at: null,
    version: 1,
    entry_count: 1,
  };
}

const criterion = (s: string) => ({
  name: s,
  description: s,
  weight: 2,
  check: { type: 'contains', value: s },
});

function challengePage(
  s: string,
  judge: Record<string, unknown>,
  recentMatches?: MatchView[],
  ratingBoard?: MatchBoardEntry[],
) {
  return renderChallengePage({
    recentMatches,
    matchHold: AFTER_HOLD,
    ratingBoard,
    challenge: { ...challengeRow(s), judge },
    entries: [0, 1].map((i) => ({
      rank: i + 1,
      agent_id: `${s}${i}`,
      agent_name: s,
      best_score: 50,
      best_submission_id: s,
      submission_count: 2,
      last_submitted_at: AT.toISOString(),
    })),
    hasMore: true,
    baseUrl: s,
    now: AT,
    account: account(s),
  });
}

function agentRow(s: string) {
  return {
    id: s,
    owner_user_id: s,
    name: s,
    model_name: s,
    version: s,
    skill_count: null,
    soul_excerpt: s,
    last_seen_at: AT,
    created_at: AT,
    updated_at: AT,
    deleted_at: null,
  };
}

function submissionPage(s: string, status: string) {
  return renderSubmissionPage({
    submission: { id: s, status, challenge_id: s, agent_id: s, created_at: AT, failure_reason: s },
    challengeTitle: s,
    result: { final_score: 50, result_state: s, summary: s },
    breakdown: { [s]: s },
    account: account(s),
  });
}

function subscriptionRow(s: string) {
  return {
    id: s,
    owner_user_id: s,
    url: s,
    events: [s, s],
    secret_encrypted: s,
    secret_prefix: s,
    status: 'active' as const,
    failure_count: 2,
    enable_generation: 0,
    last_delivery_at: AT,
    last_failure_at: AT,
    disabled_at: null,
    disabled_reason: null,
    deactivated_at: null,
    created_at: AT,
    updated_at: AT,
  };
}

function deliveryRow(s: string) {
  return {
    id: s,
    event_type: s,
    subscription_id: s,
    url: s,
    status: 'retrying' as const,
    attempts: 3,
    last_status_code: 500,
    last_error: s,
    created_at: AT,
  };
}

function attempt(s: string, series: number) {
  return {
    delivery_id: s,
    series,
    attempt_number: 1,
    status_code: 502,
    latency_ms: 12,
    success: false,
    error: s,
    response_excerpt: s,
    attempted_at: AT,
  };
}

// ---- the properties -------------------------------------------------------------------------------

/** Markup that must never reach a page as markup. */
const INJECTIONS = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "'><svg onload=alert(1)>",
  '</textarea><script>alert(1)</script>',
  '</title><script>alert(1)</script>',
  '<!--',
  '</script><script>alert(1)</script>',
  '" onmouseover="alert(1)',
  "' autofocus onfocus='alert(1)",
  '&lt;script&gt;&amp;',
  'javascript:alert(1)//<b>',
];

/** A hostile value: an injection, then noise (nasty strings, unicode, quotes, very long runs). */
const hostile = fc
  .tuple(
    fc.constantFrom(...INJECTIONS),
    fc.oneof(
      fc.constantFrom(...NASTY_STRINGS),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ unit: fc.constantFrom('<', '>', '"', "'", '&', '/', '=', ' ', 'a'), maxLength: 40 }),
      fc.constantFrom('x'.repeat(5000), '<b>'.repeat(2000), '😀'.repeat(1500)),
    ),
    fc.constantFrom(...INJECTIONS),
  )
  .map(([a, b, c]) => `${a}${b}${c}`);

/** A plain value that renders with the same shape: the same UTF-8 length, so the same cuts apply. */
const plainLike = (s: string) => 'x'.repeat(Buffer.byteLength(s, 'utf8'));

/**
 * The page's elements and attributes in order (`<tag attr attr>`), read with a small tokenizer that
 * knows quoted attribute values and the raw text of <script> and <style>.
 */
function skeleton(page: string): string[] {
  const out: string[] = [];
  const tag = /<(\/?)([a-zA-Z][\w-]*)|<!--[\s\S]*?-->|<!doctype[^>]*>/gi;
  const attr = /\s*([^\s"'>/=]+)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?|\s*\/?/y;
  let m: RegExpExecArray | null;
  while ((m = tag.exec(page))) {
    if (!m[2]) {
      out.push(m[0].startsWith('<!--') ? '<!--' : '<!doctype>');
      continue;
    }
    const names: string[] = [];
    attr.lastIndex = tag.lastIndex;
    while (attr.lastIndex < page.length && page[attr.lastIndex] !== '>') {
      const start = attr.lastIndex;
      const a = attr.exec(page);
      if (!a || attr.lastIndex === start) break;
      if (a[1]) names.push(a[1].toLowerCase());
    }
    tag.lastIndex = attr.lastIndex;
    const name = m[2].toLowerCase();
    out.push(`<${m[1]}${name}${names.length ? ` ${names.join(' ')}` : ''}>`);
    if (!m[1] && (name === 'script' || name === 'style')) {
      // Raw text: skip to its end tag (a payload that closed it early would show up as a mismatch).
      const end = page.toLowerCase().indexOf(`</${name}`, tag.lastIndex);
      tag.lastIndex = end === -1 ? page.length : end;
    }
  }
  return out;
}

const count = (page: string, needle: string) => page.toLowerCase().split(needle).length - 1;

test('every exported page renderer is fed here, or listed with its reason', () => {
  const root = path.resolve(__dirname, '../../../src');
  const files = ['api/pages', 'web'].flatMap((dir) =>
    fs
      .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => path.join(root, dir, f)),
  );
  const exported = files.flatMap((f) =>
    [...fs.readFileSync(f, 'utf8').matchAll(/^export function (render\w+)\(/gm)].map((m) => m[1]),
  );
  expect(exported.length).toBeGreaterThan(30);
  // A renderer is fed when one of RENDERERS calls it: this file names it in a call.
  const source = fs.readFileSync(__filename, 'utf8');
  const unfed = exported.filter((name) => !(name in NOT_FED) && !new RegExp(`\\b${name}\\(`).test(source));
  expect(unfed).toEqual([]);
});

describe('every page renderer escapes hostile input (property)', () => {
  beforeAll(() => console.log(`web-renderers: FC_SEED=${SEED}`));

  test.each(Object.keys(RENDERERS))('%s', (name) => {
    const render = RENDERERS[name];
    fc.assert(
      fc.property(hostile, (s) => {
        const page = String(render(s).html);
        const plain = String(render(plainLike(s)).html);
        for (const injection of INJECTIONS) expect(page).not.toContain(injection);
        expect(page).not.toContain(s);
        expect(skeleton(page)).toEqual(skeleton(plain));
        expect(count(page, '<script')).toBe(count(plain, '<script'));
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });

  test.each(Object.keys(RENDERERS))(
    '%s: plain input is escaped once, and our markup stays markup',
    (name) => {
      const page = String(RENDERERS[name]('plain value').html);
      expect(page).not.toMatch(/&amp;(amp|lt|gt|quot|#39);/);
      expect(page).not.toContain('&lt;');
      expect(page).not.toContain('&gt;');
      expect(skeleton(page).length).toBeGreaterThan(20);
    },
  );
});
