import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { forgetWorkerLanguages, recordWorkerLanguages } from '../db/queries/worker-languages';
import { LANGUAGE_OFFER_TIMING } from '../domain/languages/offer';
import { type ProbeResult, probeLanguages } from '../judging/program/probe';
import type { ServiceDeps } from '../service-deps';

/**
 * Probes the program judge's languages in the background after the worker started (compile and
 * run a probe inside the wall), records each one as soon as it passes, and keeps the record
 * fresh while the worker lives. stop() withdraws this worker's offer.
 */
export function startLanguageOffer(deps: Pick<ServiceDeps, 'db' | 'logger'>): { stop(): Promise<void> } {
  const workerId = `${os.hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const stopping = new AbortController();
  const passed: { language: string; version: string }[] = [];
  const record = () =>
    recordWorkerLanguages(deps.db, workerId, passed).catch((err) =>
      deps.logger.error({ err }, 'recording the offered languages failed'),
    );
  const probing = probeLanguages(async (result: ProbeResult) => {
    if (result.ok) {
      passed.push({ language: result.language, version: result.version });
      await record();
      deps.logger.info({ language: result.language, version: result.version }, 'language offered');
    } else {
      deps.logger.warn({ language: result.language, reason: result.reason }, 'language not offered');
    }
  }, stopping.signal).catch((err) => deps.logger.error({ err }, 'probing the languages failed'));
  const timer = setInterval(() => void record(), LANGUAGE_OFFER_TIMING.refreshMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await probing;
      await forgetWorkerLanguages(deps.db, workerId).catch(() => undefined);
    },
  };
}
