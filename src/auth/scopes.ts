import { z } from 'zod';
import { SCOPES, type Scope } from './scope-list';

export { SCOPES, type Scope };

export const scopeSchema = z.enum(SCOPES);
