import { integrationConformance } from '../src/testing/index.ts';
import { claudeAgentSdkDriver } from './support/conformance/claude-agent-sdk.ts';

integrationConformance(claudeAgentSdkDriver);
