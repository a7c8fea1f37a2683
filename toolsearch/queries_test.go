package toolsearch

// The retrieval query set: requests a user would make of a model that
// holds Discord's (242 operations) or Blockfrost's (129) API as tools,
// each with the one operation that serves it.
//
// How they were written: for each operation picked, its method, path,
// parameters and (Blockfrost) summary and description were read to learn
// what it is for; then the request was written the way a user asks for
// that, in the user's words rather than the API's: "kick this person out
// of my server", not "delete guild member"; "the most recent block", not
// "latest block". No request copies words from the operation's summary,
// except the domain's own nouns that a user has no other word for
// (channel, message, role, emoji, webhook, thread; pool, epoch,
// transaction, address, token). Discord's document has no summaries, so
// its tools are found by their names and argument names alone; the
// requests avoid the operation IDs' verbs where a user would say it
// otherwise (kick, block, erase, post). The set was written once, before
// the ranking was tuned, and is kept as it was; a request the search
// misses stays in the set.

type query struct {
	corpus  string // "discord" or "blockfrost"
	request string
	want    string // the tool that serves it
}

var querySet = []query{
	{"discord", "kick this person out of my server", "delete_guild_member"},
	{"discord", "permanently block a user from coming back to the server", "ban_user_from_guild"},
	{"discord", "let someone back in who was banned", "unban_user_from_guild"},
	{"discord", "post a text in the general channel", "create_message"},
	{"discord", "edit the text of something I already posted in a channel", "update_message"},
	{"discord", "remove a message someone posted in a channel", "delete_message"},
	{"discord", "erase a hundred messages at once from a channel", "bulk_delete_messages"},
	{"discord", "pin this message so it stays at the top of the channel", "create_pin"},
	{"discord", "show me the most recent messages in a channel", "list_messages"},
	{"discord", "react with a thumbs up emoji to a message", "add_my_message_reaction"},
	{"discord", "who reacted with the fire emoji on that message", "list_message_reactions_by_emoji"},
	{"discord", "start a discussion thread under a message", "create_thread_from_message"},
	{"discord", "make a new voice channel on the server", "create_guild_channel"},
	{"discord", "rename a channel and change its topic", "update_channel"},
	{"discord", "generate a link people can use to join this channel", "create_channel_invite"},
	{"discord", "give a member the moderator role", "add_guild_member_role"},
	{"discord", "take a role away from a user", "delete_guild_member_role"},
	{"discord", "create a new role with a colour for VIPs", "create_guild_role"},
	{"discord", "how many people have each role", "guild_role_member_counts"},
	{"discord", "look up someone on the server by the start of their username", "search_guild_members"},
	{"discord", "change someone's nickname on the server", "update_guild_member"},
	{"discord", "see who did what recently: the moderation log of the server", "list_guild_audit_log_entries"},
	{"discord", "upload a custom emoji to the server", "create_guild_emoji"},
	{"discord", "set up an automatic filter that blocks bad words", "create_auto_moderation_rule"},
	{"discord", "plan an event for friday night on the server", "create_guild_scheduled_event"},
	{"discord", "who signed up for the scheduled event", "list_guild_scheduled_event_users"},
	{"discord", "send a message through a webhook url", "execute_webhook"},
	{"discord", "make a webhook on a channel so my CI can post there", "create_webhook"},
	{"discord", "open a private conversation with a user", "create_dm"},
	{"discord", "which servers am I in", "list_my_guilds"},
	{"discord", "quit a server I no longer use", "leave_guild"},
	{"discord", "show my own account profile", "get_my_user"},
	{"discord", "remove members who have been inactive for 30 days", "prune_guild"},
	{"discord", "how many inactive members would a cleanup remove, without removing them", "preview_prune_guild"},
	{"discord", "show the list of banned users", "list_guild_bans"},
	{"discord", "list the slash commands of my bot", "list_application_commands"},
	{"discord", "register a new slash command for my bot", "create_application_command"},
	{"discord", "reply to an interaction after someone clicked a button", "create_interaction_response"},
	{"discord", "show that the bot is typing in a channel", "trigger_typing_indicator"},
	{"discord", "close a poll early", "poll_expire"},
	{"discord", "what server does this invite code lead to", "invite_resolve"},
	{"discord", "set the status text shown on a voice channel", "update_voice_channel_status"},
	{"discord", "join a thread", "join_thread"},
	{"discord", "make a copy of my server's setup as a template others can use", "create_guild_template"},

	{"blockfrost", "what is the most recent block on the chain", "get_blocks_latest"},
	{"blockfrost", "how much ada sits at this wallet address", "get_addresses_address"},
	{"blockfrost", "broadcast my signed transaction to the network", "post_tx_submit"},
	{"blockfrost", "staking rewards my stake key earned each epoch", "get_accounts_stake_address_rewards"},
	{"blockfrost", "unspent outputs at an address", "get_addresses_address_utxos"},
	{"blockfrost", "which pools has my stake key been delegated to over time", "get_accounts_stake_address_delegations"},
	{"blockfrost", "details about a stake pool given its id", "get_pools_pool_id"},
	{"blockfrost", "stake pools that are about to shut down", "get_pools_retiring"},
	{"blockfrost", "who is delegating to this pool right now", "get_pools_pool_id_delegators"},
	{"blockfrost", "what epoch are we in and when does it end", "get_epochs_latest"},
	{"blockfrost", "the fee and size settings of the protocol right now", "get_epochs_latest_parameters"},
	{"blockfrost", "look up a transaction by its hash", "get_txs_hash"},
	{"blockfrost", "the inputs and outputs of a transaction", "get_txs_hash_utxos"},
	{"blockfrost", "metadata attached to a transaction", "get_txs_hash_metadata"},
	{"blockfrost", "is the blockfrost backend up", "get_health"},
	{"blockfrost", "what time does the API server think it is", "get_health_clock"},
	{"blockfrost", "pending transactions waiting to get into a block", "get_mempool"},
	{"blockfrost", "information about a native token or NFT", "get_assets_asset"},
	{"blockfrost", "which addresses hold this token", "get_assets_asset_addresses"},
	{"blockfrost", "every token minted under a policy id", "get_assets_policy_policy_id"},
	{"blockfrost", "upload a file to ipfs", "ipfs_add"},
	{"blockfrost", "keep my ipfs file from being garbage collected", "post_ipfs_pin_add_IPFS_path"},
	{"blockfrost", "estimate the execution units a plutus script transaction needs", "post_utils_txs_evaluate"},
	{"blockfrost", "derive a wallet address from an extended public key", "get_utils_addresses_xpub_xpub_role_index"},
	{"blockfrost", "how many API requests have I made recently", "get_metrics"},
	{"blockfrost", "the delegate representatives one can vote through", "get_governance_dreps"},
	{"blockfrost", "governance actions proposed on chain", "get_governance_proposals"},
	{"blockfrost", "blocks a pool has produced", "get_pools_pool_id_blocks"},
	{"blockfrost", "total and circulating supply of ada", "get_network"},
	{"blockfrost", "the value of a datum given its hash", "get_scripts_datum_datum_hash"},
}
