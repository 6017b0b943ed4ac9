// Every entity of the domain, for the ORM bootstrap.
import { AuditEntry } from './audit/audit.entity.js';
import { AccessAsset, CatalogItem, CatalogRequest } from './catalog/catalog.entity.js';
import { Delivery, DeliverySupplement } from './events/events.entity.js';
import { Notification } from './inbox/inbox.entity.js';
import { Project, ProjectMember } from './projects/projects.entity.js';
import { AgentToken, InboundToken, Integrator } from './tokens/tokens.entity.js';
import { User } from './users/users.entity.js';

export const ENTITIES = [
  User,
  Integrator,
  InboundToken,
  AgentToken,
  Delivery,
  DeliverySupplement,
  Notification,
  AuditEntry,
  Project,
  ProjectMember,
  CatalogItem,
  CatalogRequest,
  AccessAsset,
];
