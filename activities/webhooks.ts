import type { ServiceDeps } from '../src/service-deps';
import { createDeliverySteps, type DeliveryOptions } from '../src/domain/webhooks/delivery';

/**
 * The webhook workflows' activities: the delivery steps of src/domain/webhooks/delivery.ts, as they
 * are (each is idempotent and throws only for infrastructure errors, which Temporal retries).
 */
export function createWebhookActivities(deps: ServiceDeps, options: DeliveryOptions = {}) {
  return createDeliverySteps(deps, options);
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
