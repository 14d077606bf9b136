CREATE TABLE "billing_accounts" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"stripe_customer_id" text,
	"trial_used_at" timestamp with time zone,
	"busy_until" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- Only an admin's revoke of an account without a subscription wrote a row without a provider.
UPDATE "subscriptions" SET "provider" = 'admin' WHERE "provider" IS NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" DROP CONSTRAINT "subscriptions_pkey";--> statement-breakpoint
ALTER TABLE "subscriptions" ALTER COLUMN "provider" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_user_id_provider_pk" PRIMARY KEY("user_id","provider");--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "trial" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "cancel_at_period_end" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "billing_accounts" ADD CONSTRAINT "billing_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "billing_accounts_stripe_customer_idx" ON "billing_accounts" USING btree ("stripe_customer_id");--> statement-breakpoint
CREATE INDEX "subscriptions_external_idx" ON "subscriptions" USING btree ("provider","external_id");--> statement-breakpoint
-- Every card checkout so far offered the 7-day trial.
UPDATE "checkout_sessions" SET "trial" = true WHERE "provider" = 'card';--> statement-breakpoint
-- An account that ever started a trial (a card subscription with a trial, or a completed card checkout,
-- even when a crypto payment later took its row's place) has used it.
INSERT INTO "billing_accounts" ("user_id", "trial_used_at")
SELECT "user_id", min("started") FROM (
	SELECT "user_id", "trial_end" - interval '7 days' AS "started" FROM "subscriptions" WHERE "trial_end" IS NOT NULL
	UNION ALL
	SELECT "user_id", "created_at" AS "started" FROM "checkout_sessions" WHERE "provider" = 'card' AND "status" = 'completed'
) AS "trials"
GROUP BY "user_id";
