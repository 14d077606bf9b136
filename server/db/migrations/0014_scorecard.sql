CREATE TABLE "signal_scores" (
	"signal_id" bigint NOT NULL,
	"asset" text NOT NULL,
	"horizon_s" integer NOT NULL,
	"price" double precision NOT NULL,
	"price_source" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"taken_at" timestamp with time zone NOT NULL,
	"source" text NOT NULL,
	"source_name" text NOT NULL,
	"sentiment" text NOT NULL,
	"impact" real NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "signal_scores_key_idx" ON "signal_scores" USING btree ("signal_id","asset","horizon_s");--> statement-breakpoint
CREATE INDEX "signal_scores_received_idx" ON "signal_scores" USING btree ("received_at");