// Tests for ApiCallbackDispatcher without the engine: the test plays the engine (calls OnApiEnter /
// OnApiExit as simcuda_api_begin/_end do) and checks enable state, registration, what the
// subscriber's callback receives, the no-recursion rule and the Detach guarantee.
#include "api_callback_dispatcher.h"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "callback_names.h"

namespace simcuda::cupti {
namespace {

constexpr uint32_t kStreamSync = CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020;
constexpr uint32_t kMemcpy = CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020;
constexpr uint32_t kCuStreamSync = CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize;

std::atomic<ApiCallbackSink*> g_registered{nullptr};
void FakeRegister(ApiCallbackSink* sink) { g_registered.store(sink); }

struct Seen {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
  CUpti_ApiCallbackSite site;
  std::string function_name;
  uint32_t correlation_id;
  uint64_t correlation_data;  // value read at the callback
  int32_t return_value;
  CUcontext context;
  uint32_t context_uid;
  bool params_null;
};

// The subscriber's side: records what it sees; writes correlationData at ENTER.
struct Recorder {
  std::vector<Seen> seen;
  std::function<void()> on_enter;  // runs inside the ENTER callback
};

void Record(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
            const void* cbdata) {
  auto* recorder = static_cast<Recorder*>(userdata);
  const auto* data = static_cast<const CUpti_CallbackData*>(cbdata);
  if (data->callbackSite == CUPTI_API_ENTER)
    *data->correlationData = 0xabc000 + data->correlationId;
  recorder->seen.push_back(Seen{domain, cbid, data->callbackSite,
                                data->functionName != nullptr ? data->functionName : "<null>",
                                data->correlationId, *data->correlationData,
                                *static_cast<const int32_t*>(data->functionReturnValue),
                                data->context, data->contextUid, data->functionParams == nullptr});
  if (data->callbackSite == CUPTI_API_ENTER && recorder->on_enter) recorder->on_enter();
}

// One simulated API call's per-call state, as simcuda_api_call holds it.
struct FakeCall {
  uint64_t correlation_data = 0;
  int32_t return_value = 0;
  void* sink_state = nullptr;
  int context_storage = 0;

  ApiCallSite Site(ApiDomain domain, uint32_t cbid, uint32_t correlation_id) {
    return ApiCallSite{
        domain,        cbid,       correlation_id, 1, &context_storage, &correlation_data,
        &return_value, &sink_state};
  }
};

// Plays one API call through the dispatcher the way the engine does.
void Call(ApiCallbackDispatcher& dispatcher, ApiDomain domain, uint32_t cbid,
          uint32_t correlation_id, int32_t result) {
  FakeCall call;
  const ApiCallSite site = call.Site(domain, cbid, correlation_id);
  dispatcher.OnApiEnter(site);
  call.return_value = result;
  if (call.sink_state != nullptr) dispatcher.OnApiExit(site);
}

class ApiCallbackDispatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_registered.store(nullptr);
    handle_ = CUpti_Subscriber_st{&Record, &recorder_};
    dispatcher_.Attach(&handle_);
  }

  Recorder recorder_;
  CUpti_Subscriber_st handle_{};
  ApiCallbackDispatcher dispatcher_{&FakeRegister};
};

TEST_F(ApiCallbackDispatcherTest, RegistersWithTheEngineOnlyWhileAnApiIdIsEnabled) {
  EXPECT_EQ(g_registered.load(), nullptr);
  ASSERT_EQ(dispatcher_.EnableCallback(1, &handle_, CUPTI_CB_DOMAIN_RESOURCE, 1), CUPTI_SUCCESS);
  EXPECT_EQ(g_registered.load(), nullptr) << "resource callbacks are never delivered";
  ASSERT_EQ(dispatcher_.EnableCallback(1, &handle_, CUPTI_CB_DOMAIN_RUNTIME_API, kStreamSync),
            CUPTI_SUCCESS);
  EXPECT_EQ(g_registered.load(), &dispatcher_);
  ASSERT_EQ(dispatcher_.EnableCallback(0, &handle_, CUPTI_CB_DOMAIN_RUNTIME_API, kStreamSync),
            CUPTI_SUCCESS);
  EXPECT_EQ(g_registered.load(), nullptr);
  ASSERT_EQ(dispatcher_.EnableDomain(1, &handle_, CUPTI_CB_DOMAIN_DRIVER_API), CUPTI_SUCCESS);
  EXPECT_EQ(g_registered.load(), &dispatcher_);
  dispatcher_.Detach(&handle_);
  EXPECT_EQ(g_registered.load(), nullptr);
}

TEST_F(ApiCallbackDispatcherTest, ValidatesSubscriberDomainAndIdBounds) {
  CUpti_Subscriber_st other{&Record, &recorder_};
  EXPECT_EQ(dispatcher_.EnableCallback(1, &other, CUPTI_CB_DOMAIN_RUNTIME_API, kStreamSync),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(dispatcher_.EnableCallback(1, nullptr, CUPTI_CB_DOMAIN_RUNTIME_API, kStreamSync),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(dispatcher_.EnableCallback(1, &handle_, CUPTI_CB_DOMAIN_RUNTIME_API,
                                       CUPTI_RUNTIME_TRACE_CBID_SIZE),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(dispatcher_.EnableCallback(1, &handle_, CUPTI_CB_DOMAIN_DRIVER_API,
                                       CUPTI_DRIVER_TRACE_CBID_SIZE),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(dispatcher_.EnableCallback(1, &handle_, CUPTI_CB_DOMAIN_DRIVER_API, 0),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(
      dispatcher_.EnableCallback(1, &handle_, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_SIZE),
      CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(dispatcher_.EnableCallback(1, &handle_, CUPTI_CB_DOMAIN_INVALID, 1),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(dispatcher_.EnableDomain(1, &handle_, CUPTI_CB_DOMAIN_SIZE),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(dispatcher_.EnableAllDomains(1, &other), CUPTI_ERROR_INVALID_PARAMETER);
  // The largest valid ids are accepted.
  EXPECT_EQ(dispatcher_.EnableCallback(1, &handle_, CUPTI_CB_DOMAIN_RUNTIME_API,
                                       CUPTI_RUNTIME_TRACE_CBID_SIZE - 1),
            CUPTI_SUCCESS);
  EXPECT_EQ(dispatcher_.EnableCallback(1, &handle_, CUPTI_CB_DOMAIN_DRIVER_API,
                                       CUPTI_DRIVER_TRACE_CBID_SIZE - 1),
            CUPTI_SUCCESS);
  uint32_t state = 7;
  EXPECT_EQ(dispatcher_.GetCallbackState(nullptr, &handle_, CUPTI_CB_DOMAIN_RUNTIME_API, 1),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(dispatcher_.GetCallbackState(&state, &handle_, CUPTI_CB_DOMAIN_RUNTIME_API,
                                         CUPTI_RUNTIME_TRACE_CBID_SIZE),
            CUPTI_ERROR_INVALID_PARAMETER);
}

TEST_F(ApiCallbackDispatcherTest, EnableStateFollowsCallbackDomainAndAllDomains) {
  uint32_t state = 7;
  auto state_of = [&](CUpti_CallbackDomain domain, uint32_t cbid) {
    EXPECT_EQ(dispatcher_.GetCallbackState(&state, &handle_, domain, cbid), CUPTI_SUCCESS);
    return state;
  };
  EXPECT_EQ(state_of(CUPTI_CB_DOMAIN_RUNTIME_API, kStreamSync), 0u);
  ASSERT_EQ(dispatcher_.EnableCallback(1, &handle_, CUPTI_CB_DOMAIN_RUNTIME_API, kStreamSync),
            CUPTI_SUCCESS);
  EXPECT_EQ(state_of(CUPTI_CB_DOMAIN_RUNTIME_API, kStreamSync), 1u);
  EXPECT_EQ(state_of(CUPTI_CB_DOMAIN_RUNTIME_API, kMemcpy), 0u);
  ASSERT_EQ(dispatcher_.EnableDomain(1, &handle_, CUPTI_CB_DOMAIN_DRIVER_API), CUPTI_SUCCESS);
  EXPECT_EQ(state_of(CUPTI_CB_DOMAIN_DRIVER_API, kCuStreamSync), 1u);
  EXPECT_EQ(state_of(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE - 1), 1u);
  ASSERT_EQ(dispatcher_.EnableDomain(0, &handle_, CUPTI_CB_DOMAIN_DRIVER_API), CUPTI_SUCCESS);
  EXPECT_EQ(state_of(CUPTI_CB_DOMAIN_DRIVER_API, kCuStreamSync), 0u);
  EXPECT_EQ(state_of(CUPTI_CB_DOMAIN_RUNTIME_API, kStreamSync), 1u) << "other domains untouched";
  ASSERT_EQ(dispatcher_.EnableAllDomains(1, &handle_), CUPTI_SUCCESS);
  EXPECT_EQ(state_of(CUPTI_CB_DOMAIN_STATE, 1), 1u);
  EXPECT_EQ(state_of(CUPTI_CB_DOMAIN_RUNTIME_API, kMemcpy), 1u);
  ASSERT_EQ(dispatcher_.EnableAllDomains(0, &handle_), CUPTI_SUCCESS);
  EXPECT_EQ(state_of(CUPTI_CB_DOMAIN_RUNTIME_API, kStreamSync), 0u);
}

TEST_F(ApiCallbackDispatcherTest, DeliversEnterAndExitOfEnabledIdsOnly) {
  ASSERT_EQ(dispatcher_.EnableCallback(1, &handle_, CUPTI_CB_DOMAIN_RUNTIME_API, kStreamSync),
            CUPTI_SUCCESS);
  ASSERT_EQ(dispatcher_.EnableCallback(1, &handle_, CUPTI_CB_DOMAIN_DRIVER_API, kCuStreamSync),
            CUPTI_SUCCESS);
  Call(dispatcher_, ApiDomain::kRuntime, kMemcpy, 10, 0);  // not enabled
  Call(dispatcher_, ApiDomain::kRuntime, kStreamSync, 11, 400);
  Call(dispatcher_, ApiDomain::kDriver, kCuStreamSync, 12, 0);
  Call(dispatcher_, ApiDomain::kDriver, kStreamSync, 13, 0);  // same number, other domain

  ASSERT_EQ(recorder_.seen.size(), 4u);
  const Seen& enter = recorder_.seen[0];
  const Seen& exit = recorder_.seen[1];
  EXPECT_EQ(enter.domain, CUPTI_CB_DOMAIN_RUNTIME_API);
  EXPECT_EQ(enter.cbid, kStreamSync);
  EXPECT_EQ(enter.site, CUPTI_API_ENTER);
  EXPECT_EQ(exit.site, CUPTI_API_EXIT);
  EXPECT_EQ(enter.function_name, "cudaStreamSynchronize");
  EXPECT_EQ(exit.function_name, "cudaStreamSynchronize");
  EXPECT_EQ(enter.correlation_id, 11u);
  EXPECT_EQ(exit.correlation_id, 11u);
  EXPECT_EQ(exit.correlation_data, 0xabc000u + 11) << "what ENTER wrote, EXIT reads";
  EXPECT_EQ(exit.return_value, 400);
  EXPECT_NE(enter.context, nullptr);
  EXPECT_EQ(enter.context_uid, 1u);
  EXPECT_TRUE(enter.params_null);
  EXPECT_EQ(recorder_.seen[2].domain, CUPTI_CB_DOMAIN_DRIVER_API);
  EXPECT_EQ(recorder_.seen[2].function_name, "cuStreamSynchronize");
  EXPECT_EQ(recorder_.seen[3].site, CUPTI_API_EXIT);
  EXPECT_EQ(recorder_.seen[3].correlation_id, 12u);
}

TEST_F(ApiCallbackDispatcherTest, DisablingBetweenEnterAndExitKeepsThePair) {
  ASSERT_EQ(dispatcher_.EnableCallback(1, &handle_, CUPTI_CB_DOMAIN_RUNTIME_API, kStreamSync),
            CUPTI_SUCCESS);
  FakeCall call;
  const ApiCallSite site = call.Site(ApiDomain::kRuntime, kStreamSync, 5);
  dispatcher_.OnApiEnter(site);
  ASSERT_NE(call.sink_state, nullptr);
  ASSERT_EQ(dispatcher_.EnableCallback(0, &handle_, CUPTI_CB_DOMAIN_RUNTIME_API, kStreamSync),
            CUPTI_SUCCESS);
  dispatcher_.OnApiExit(site);
  ASSERT_EQ(recorder_.seen.size(), 2u);
  EXPECT_EQ(recorder_.seen[1].site, CUPTI_API_EXIT);
  Call(dispatcher_, ApiDomain::kRuntime, kStreamSync, 6, 0);
  EXPECT_EQ(recorder_.seen.size(), 2u) << "disabled: no more callbacks";
}

TEST_F(ApiCallbackDispatcherTest, NoExitAfterDetachAndNothingAfterIt) {
  ASSERT_EQ(dispatcher_.EnableCallback(1, &handle_, CUPTI_CB_DOMAIN_RUNTIME_API, kStreamSync),
            CUPTI_SUCCESS);
  FakeCall call;
  const ApiCallSite site = call.Site(ApiDomain::kRuntime, kStreamSync, 5);
  dispatcher_.OnApiEnter(site);
  dispatcher_.Detach(&handle_);
  dispatcher_.OnApiExit(site);
  Call(dispatcher_, ApiDomain::kRuntime, kStreamSync, 6, 0);
  ASSERT_EQ(recorder_.seen.size(), 1u);
  EXPECT_EQ(recorder_.seen[0].site, CUPTI_API_ENTER);
  EXPECT_EQ(dispatcher_.EnableCallback(1, &handle_, CUPTI_CB_DOMAIN_RUNTIME_API, kStreamSync),
            CUPTI_ERROR_INVALID_PARAMETER);
}

TEST_F(ApiCallbackDispatcherTest, CallsMadeInsideACallbackGetNoCallbacks) {
  ASSERT_EQ(dispatcher_.EnableDomain(1, &handle_, CUPTI_CB_DOMAIN_RUNTIME_API), CUPTI_SUCCESS);
  int nested_calls = 0;
  recorder_.on_enter = [&] {
    if (nested_calls++ > 0) return;  // (would recurse without the rule)
    Call(dispatcher_, ApiDomain::kRuntime, kMemcpy, 99, 0);
  };
  Call(dispatcher_, ApiDomain::kRuntime, kStreamSync, 1, 0);
  ASSERT_EQ(recorder_.seen.size(), 2u);
  EXPECT_EQ(recorder_.seen[0].correlation_id, 1u);
  EXPECT_EQ(recorder_.seen[1].correlation_id, 1u);
  EXPECT_EQ(nested_calls, 1);
  // The flag is cleared afterwards: the next call on this thread gets callbacks again.
  recorder_.on_enter = nullptr;
  Call(dispatcher_, ApiDomain::kRuntime, kMemcpy, 2, 0);
  EXPECT_EQ(recorder_.seen.size(), 4u);
}

TEST_F(ApiCallbackDispatcherTest, DetachWaitsForACallbackRunningOnAnotherThread) {
  ASSERT_EQ(dispatcher_.EnableCallback(1, &handle_, CUPTI_CB_DOMAIN_RUNTIME_API, kStreamSync),
            CUPTI_SUCCESS);
  std::atomic<bool> in_callback{false}, release{false}, detached{false};
  recorder_.on_enter = [&] {
    in_callback.store(true);
    while (!release.load()) std::this_thread::yield();
  };
  std::thread caller([&] { Call(dispatcher_, ApiDomain::kRuntime, kStreamSync, 1, 0); });
  while (!in_callback.load()) std::this_thread::yield();
  std::thread detacher([&] {
    dispatcher_.Detach(&handle_);
    detached.store(true);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(detached.load()) << "Detach returned while a callback was still running";
  release.store(true);
  detacher.join();
  caller.join();
  EXPECT_TRUE(detached.load());
  ASSERT_EQ(recorder_.seen.size(), 1u) << "no EXIT once the subscriber is gone";
}

TEST_F(ApiCallbackDispatcherTest, ACallbackMayDetachItsOwnSubscriber) {
  ASSERT_EQ(dispatcher_.EnableCallback(1, &handle_, CUPTI_CB_DOMAIN_RUNTIME_API, kStreamSync),
            CUPTI_SUCCESS);
  recorder_.on_enter = [&] { dispatcher_.Detach(&handle_); };  // must not wait for itself
  Call(dispatcher_, ApiDomain::kRuntime, kStreamSync, 1, 0);
  EXPECT_EQ(recorder_.seen.size(), 1u);
}

TEST_F(ApiCallbackDispatcherTest, NullCallbackSubscriberGetsNothingAndNothingBreaks) {
  CUpti_Subscriber_st silent{nullptr, nullptr};
  dispatcher_.Detach(&handle_);
  dispatcher_.Attach(&silent);
  ASSERT_EQ(dispatcher_.EnableAllDomains(1, &silent), CUPTI_SUCCESS);
  FakeCall call;
  const ApiCallSite site = call.Site(ApiDomain::kRuntime, kStreamSync, 1);
  dispatcher_.OnApiEnter(site);
  EXPECT_EQ(call.sink_state, nullptr) << "no EXIT requested";
  EXPECT_TRUE(recorder_.seen.empty());
}

TEST(CallbackNamesTest, FunctionNamesAreThePlainApiNames) {
  EXPECT_STREQ(ApiFunctionName(CUPTI_CB_DOMAIN_RUNTIME_API, kStreamSync), "cudaStreamSynchronize");
  EXPECT_STREQ(ApiFunctionName(CUPTI_CB_DOMAIN_RUNTIME_API,
                               CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000),
               "cudaStreamSynchronize_ptsz");
  EXPECT_STREQ(ApiFunctionName(CUPTI_CB_DOMAIN_RUNTIME_API,
                               CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000),
               "__cudaLaunchKernel");
  EXPECT_STREQ(ApiFunctionName(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2),
               "cuMemcpyDtoH_v2");
  EXPECT_STREQ(ApiFunctionName(CUPTI_CB_DOMAIN_DRIVER_API, kCuStreamSync), "cuStreamSynchronize");
  EXPECT_STREQ(CallbackIdName(CUPTI_CB_DOMAIN_RUNTIME_API, kMemcpy), "cudaMemcpy_v3020");
  EXPECT_EQ(ApiFunctionName(CUPTI_CB_DOMAIN_RUNTIME_API, 0), nullptr);
  EXPECT_EQ(ApiFunctionName(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE), nullptr);
  EXPECT_EQ(ApiFunctionName(CUPTI_CB_DOMAIN_RESOURCE, 1), nullptr);
}

}  // namespace
}  // namespace simcuda::cupti
