import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes, so operators can filter runs in the Temporal Web UI
 * (e.g. `SubmissionStatus = "failed" AND ChallengeId = "..."`). Registered when the dev server
 * starts (temporal/dev-server.sh); a production cluster registers them once with
 * `temporal operator search-attribute create`.
 */
export const ChallengeIdKey = defineSearchAttributeKey('ChallengeId', SearchAttributeType.KEYWORD);
export const AgentIdKey = defineSearchAttributeKey('AgentId', SearchAttributeType.KEYWORD);
export const SubmissionStatusKey = defineSearchAttributeKey('SubmissionStatus', SearchAttributeType.KEYWORD);
/** The arena (src/domain/matches): a match's id and status, and its participants (a keyword list). */
export const MatchIdKey = defineSearchAttributeKey('MatchId', SearchAttributeType.KEYWORD);
export const MatchStatusKey = defineSearchAttributeKey('MatchStatus', SearchAttributeType.KEYWORD);
export const AgentIdsKey = defineSearchAttributeKey('AgentIds', SearchAttributeType.KEYWORD_LIST);

/** `name=Type` pairs for `temporal server start-dev --search-attribute`. */
export const SEARCH_ATTRIBUTE_FLAGS = [
  'ChallengeId=Keyword',
  'AgentId=Keyword',
  'SubmissionStatus=Keyword',
  'MatchId=Keyword',
  'MatchStatus=Keyword',
  'AgentIds=KeywordList',
];
