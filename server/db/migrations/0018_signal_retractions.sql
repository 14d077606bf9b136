CREATE TABLE "signal_score_roles" (
	"signal_id" bigint PRIMARY KEY NOT NULL,
	"role" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "retracted_by" bigint;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "retracted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "retraction_reason" text;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "retraction_kind" text;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "retracts_id" bigint;