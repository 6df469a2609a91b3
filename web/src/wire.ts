// The API's wire shapes, generated from the service's OpenAPI document (openapi.d.ts, made by `npm run wire`
// from web/openapi.json, which `make web` writes with `houndgraph openapi`): never written by hand.
import type { components } from "./openapi";

type Schemas = components["schemas"];

export type AttackPathType = Schemas["AttackPathType"];
export type RiskCounts = Schemas["RiskCounts"];
export type RiskPostureStat = Schemas["RiskPostureStat"];
export type RelationshipFinding = Schemas["RelationshipFinding"];
export type ListFinding = Schemas["ListFinding"];
export type JobView = Schemas["JobView"];
export type DomainResultView = Schemas["DomainResultView"];
export type EventView = Schemas["EventView"];
export type AuditLogView = Schemas["AuditLogView"];
export type JobLogView = Schemas["JobLogView"];
