import {
  resourceGetTool,
  resourcesSearchTool,
  resourcesFindTool,
  relationsTool,
  dependentsTool,
  dependenciesTool,
  identityTool,
  createRelationshipTool,
  updateEntityAttributesTool,
  declareResourceTool,
} from './resource-tools.js';
import {
  transitionsTool,
  explainTransitionTool,
  stateAtTool,
  attributionCoverageTool,
  healthSummaryTool,
  openConditionsTool,
  reviewUnauthorizedActionTool,
  listChecksTool,
  incidentContextTool,
  auditLogTool,
} from './history-tools.js';
import {
  classifyActionTool,
  requestApprovalTool,
  approvalsTool,
  approveTool,
  denyTool,
  redeemGrantTool,
  grantRedeemsTool,
  setAutonomyTool,
  reportActionTakenTool,
  replayDecisionTool,
} from './gate-tools.js';
import { notificationDeliveriesTool, replayNotificationTool } from './notification-tools.js';
import type { Tool } from './tool.js';

export type { Tool, ToolDefinition } from './tool.js';

/*
 * The MCP tool registry, in the order `tools/list` answers it. Each tool is defined with its area:
 * resource-tools.ts (resources and edges), history-tools.ts (what happened, what is wrong),
 * gate-tools.ts (the gate, approvals and grants), notification-tools.ts (notifications out); tool.ts says what a tool is.
 */
export const TOOLS: readonly Tool[] = [
  resourceGetTool,
  resourcesSearchTool,
  resourcesFindTool,
  relationsTool,
  dependentsTool,
  dependenciesTool,
  identityTool,
  transitionsTool,
  explainTransitionTool,
  stateAtTool,
  attributionCoverageTool,
  healthSummaryTool,
  openConditionsTool,
  reviewUnauthorizedActionTool,
  listChecksTool,
  createRelationshipTool,
  updateEntityAttributesTool,
  classifyActionTool,
  auditLogTool,
  declareResourceTool,
  incidentContextTool,
  requestApprovalTool,
  approvalsTool,
  approveTool,
  denyTool,
  redeemGrantTool,
  grantRedeemsTool,
  setAutonomyTool,
  reportActionTakenTool,
  replayDecisionTool,
  notificationDeliveriesTool,
  replayNotificationTool,
];
