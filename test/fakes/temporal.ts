/**
 * An in-memory stand-in for the Temporal client (ServiceDeps.temporal): it records every workflow
 * started, signalled or executed, refuses a second start of a running id as the real service does
 * (WorkflowExecutionAlreadyStartedError), and answers `execute` with what a test queued. Domain
 * operations and pages run against it in unit tests; integration tests keep the real service.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { Client as TemporalClient } from '@temporalio/client';

export interface RecordedWorkflow {
  workflowType: string;
  workflowId: string;
  taskQueue: string;
  args: unknown[];
  /** Every signal it received, in order (signalWithStart's included). */
  signals: { name: string; args: unknown[] }[];
  searchAttributes: { key: string; value: unknown }[];
}

interface StartOptions {
  workflowId: string;
  taskQueue: string;
  args?: unknown[];
  typedSearchAttributes?: { key: { name: string } | string; value: unknown }[];
}

const attributeName = (key: { name: string } | string) => (typeof key === 'string' ? key : key.name);

export class FakeTemporal {
  readonly workflows = new Map<string, RecordedWorkflow>();
  /** Answers for `workflow.execute`, by workflow type (a function sees the workflow's arguments). */
  readonly executeResults = new Map<string, (args: unknown[]) => unknown>();
  /** When set, connecting fails with it (the service is down). */
  unavailable: Error | null = null;
  connects = 0;

  /** ServiceDeps.temporal. */
  readonly connect = async (): Promise<TemporalClient> => {
    this.connects += 1;
    if (this.unavailable) throw this.unavailable;
    return this.client as unknown as TemporalClient;
  };

  started(workflowType?: string): RecordedWorkflow[] {
    return [...this.workflows.values()].filter((w) => !workflowType || w.workflowType === workflowType);
  }

  private record(workflowType: string | { name: string }, options: StartOptions): RecordedWorkflow {
    const w: RecordedWorkflow = {
      workflowType: typeof workflowType === 'string' ? workflowType : workflowType.name,
      workflowId: options.workflowId,
      taskQueue: options.taskQueue,
      args: options.args ?? [],
      signals: [],
      searchAttributes: (options.typedSearchAttributes ?? []).map((a) => ({
        key: attributeName(a.key),
        value: a.value,
      })),
    };
    this.workflows.set(w.workflowId, w);
    return w;
  }

  private handle(workflowId: string) {
    const find = () => {
      const w = this.workflows.get(workflowId);
      if (!w) throw new WorkflowNotFoundError(`workflow ${workflowId} not found`, workflowId, undefined);
      return w;
    };
    return {
      workflowId,
      signal: async (name: string | { name: string }, ...args: unknown[]) => {
        find().signals.push({ name: typeof name === 'string' ? name : name.name, args });
      },
      // Nothing runs here: a recorded workflow stays running for as long as the fake lives.
      describe: async () => ({ workflowId, type: find().workflowType, status: { name: 'RUNNING' } }),
    };
  }

  private readonly client = {
    // The API's readiness probe asks the service for its system info: up unless `unavailable`.
    connection: {
      workflowService: {
        getSystemInfo: async () => {
          if (this.unavailable) throw this.unavailable;
          return {};
        },
      },
    },
    workflow: {
      start: async (workflowType: string | { name: string }, options: StartOptions) => {
        if (this.workflows.has(options.workflowId))
          throw new WorkflowExecutionAlreadyStartedError(
            'workflow execution already started',
            options.workflowId,
            typeof workflowType === 'string' ? workflowType : workflowType.name,
          );
        this.record(workflowType, options);
        return this.handle(options.workflowId);
      },
      signalWithStart: async (
        workflowType: string | { name: string },
        options: StartOptions & { signal: string | { name: string }; signalArgs?: unknown[] },
      ) => {
        const w = this.workflows.get(options.workflowId) ?? this.record(workflowType, options);
        w.signals.push({
          name: typeof options.signal === 'string' ? options.signal : options.signal.name,
          args: options.signalArgs ?? [],
        });
        return this.handle(options.workflowId);
      },
      execute: async (workflowType: string | { name: string }, options: StartOptions) => {
        const w = this.record(workflowType, options);
        const answer = this.executeResults.get(w.workflowType);
        if (!answer) throw new Error(`FakeTemporal: no result queued for ${w.workflowType}`);
        return answer(w.args);
      },
      getHandle: (workflowId: string) => this.handle(workflowId),
    },
  };
}
