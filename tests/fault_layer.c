/* A Vulkan layer that the tests (tests/test_batch.c) put between vkfx and the driver to inject
 * the failures a GPU has and lavapipe does not, so that no production file carries test code.
 * VKFX_FAULT="alloc:N", "lost:N" or both, comma-separated (N >= 1):
 * - alloc:N: the Nth vkAllocateMemory of the process returns VK_ERROR_OUT_OF_DEVICE_MEMORY;
 * - lost:N: the Nth queue submission finds the device lost, and so does every later one, and
 *   every later wait for work that had not finished when the device was lost.
 * An implicit layer (its manifest, tests/fault_layer.json.in, names the library meson built)
 * that VKFX_FAULT_LAYER=1 enables once test_batch puts the manifest where the loader looks
 * ($XDG_DATA_HOME/vulkan/implicit_layer.d). The loader puts implicit layers above the layers
 * the application enables, so the validation layer below never sees a submission or
 * allocation that did not happen. A bad VKFX_FAULT aborts:
 * a test that meant to inject a fault must not pass without one. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define EXPORT __attribute__((visibility("default")))

/* The next layer's entry points, per dispatchable object of ours (instances and devices; a
 * queue shares its device's dispatch key). */
typedef struct next_table {
    void *key;
    PFN_vkGetInstanceProcAddr gipa;
    PFN_vkGetDeviceProcAddr gdpa;
    PFN_vkDestroyInstance destroy_instance;
    PFN_vkDestroyDevice destroy_device;
    PFN_vkAllocateMemory allocate_memory;
    PFN_vkQueueSubmit queue_submit;
    PFN_vkQueueSubmit2 queue_submit2;
    PFN_vkWaitSemaphores wait_semaphores;
    PFN_vkGetSemaphoreCounterValue semaphore_value;
    PFN_vkDeviceWaitIdle device_wait_idle;
    VkDevice device;
} next_table;

enum { MOST_OBJECTS = 32 };
static next_table tables[MOST_OBJECTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The faults, read once; counts are per process (vkfx makes one device per process). */
static pthread_once_t faults_once = PTHREAD_ONCE_INIT;
static unsigned fault_alloc, fault_lost, nallocs, nsubmits;
static bool lost;

static void read_faults(void)
{
    const char *spec = getenv("VKFX_FAULT");
    while (spec && *spec) {
        unsigned n = 0;
        int used = 0;
        if (sscanf(spec, "alloc:%u%n", &n, &used) == 1 && n)
            fault_alloc = n;
        else if (sscanf(spec, "lost:%u%n", &n, &used) == 1 && n)
            fault_lost = n;
        else {
            fprintf(stderr, "fault layer: VKFX_FAULT='%s': want alloc:N or lost:N (N >= 1)\n",
                    getenv("VKFX_FAULT"));
            abort();
        }
        spec += used;
        spec += *spec == ',';
    }
}

static void *key_of(const void *handle)
{
    return *(void *const *)handle;
}

static next_table *table_of(const void *handle)
{
    void *key = key_of(handle);
    next_table *t = NULL;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MOST_OBJECTS && !t; i++)
        if (tables[i].key == key)
            t = &tables[i];
    pthread_mutex_unlock(&lock);
    if (!t) {
        fprintf(stderr, "fault layer: a handle it did not create\n");
        abort();
    }
    return t;
}

static next_table *table_new(const void *handle)
{
    next_table *t = NULL;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MOST_OBJECTS && !t; i++)
        if (!tables[i].key) {
            t = &tables[i];
            memset(t, 0, sizeof(*t));
            t->key = key_of(handle);
        }
    pthread_mutex_unlock(&lock);
    if (!t) {
        fprintf(stderr, "fault layer: more than %d instances and devices\n", MOST_OBJECTS);
        abort();
    }
    return t;
}

/* Forgets handle's table; returns what it held (the next layer's destroy, still to be called). */
static next_table table_take(const void *handle)
{
    next_table *t = table_of(handle);
    next_table held = *t;
    pthread_mutex_lock(&lock);
    t->key = NULL;
    pthread_mutex_unlock(&lock);
    return held;
}

/* The loader's link to the next layer in a create info's pNext chain, or NULL. The instance
 * and device link structures begin alike (sType, pNext, function). */
static void *next_link(const void *chain, VkStructureType type)
{
    for (const VkLayerInstanceCreateInfo *l = chain; l; l = l->pNext)
        if (l->sType == type && l->function == VK_LAYER_LINK_INFO)
            return (void *)l;
    return NULL;
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_CreateInstance(const VkInstanceCreateInfo *info,
                                                           const VkAllocationCallbacks *alloc,
                                                           VkInstance *instance)
{
    pthread_once(&faults_once, read_faults);
    VkLayerInstanceCreateInfo *link =
        next_link(info->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
    if (!link)
        return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    VkResult r = create(info, alloc, instance);
    if (r != VK_SUCCESS)
        return r;
    next_table *t = table_new(*instance);
    t->gipa = gipa;
    t->destroy_instance = (PFN_vkDestroyInstance)gipa(*instance, "vkDestroyInstance");
    return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL fault_DestroyInstance(VkInstance instance,
                                                        const VkAllocationCallbacks *alloc)
{
    if (instance)
        table_take(instance).destroy_instance(instance, alloc);
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_CreateDevice(VkPhysicalDevice phys,
                                                         const VkDeviceCreateInfo *info,
                                                         const VkAllocationCallbacks *alloc,
                                                         VkDevice *device)
{
    VkLayerDeviceCreateInfo *link =
        next_link(info->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
    if (!link)
        return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(VK_NULL_HANDLE, "vkCreateDevice");
    VkResult r = create(phys, info, alloc, device);
    if (r != VK_SUCCESS)
        return r;
    next_table *t = table_new(*device);
    t->gdpa = gdpa;
    t->device = *device;
#define NEXT(field, type, name) t->field = (type)gdpa(*device, name)
    NEXT(destroy_device, PFN_vkDestroyDevice, "vkDestroyDevice");
    NEXT(allocate_memory, PFN_vkAllocateMemory, "vkAllocateMemory");
    NEXT(queue_submit, PFN_vkQueueSubmit, "vkQueueSubmit");
    NEXT(queue_submit2, PFN_vkQueueSubmit2, "vkQueueSubmit2");
    if (!t->queue_submit2)
        NEXT(queue_submit2, PFN_vkQueueSubmit2, "vkQueueSubmit2KHR");
    NEXT(wait_semaphores, PFN_vkWaitSemaphores, "vkWaitSemaphores");
    if (!t->wait_semaphores)
        NEXT(wait_semaphores, PFN_vkWaitSemaphores, "vkWaitSemaphoresKHR");
    NEXT(semaphore_value, PFN_vkGetSemaphoreCounterValue, "vkGetSemaphoreCounterValue");
    if (!t->semaphore_value)
        NEXT(semaphore_value, PFN_vkGetSemaphoreCounterValue, "vkGetSemaphoreCounterValueKHR");
    NEXT(device_wait_idle, PFN_vkDeviceWaitIdle, "vkDeviceWaitIdle");
#undef NEXT
    return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL fault_DestroyDevice(VkDevice device,
                                                      const VkAllocationCallbacks *alloc)
{
    if (device)
        table_take(device).destroy_device(device, alloc);
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_AllocateMemory(VkDevice device,
                                                           const VkMemoryAllocateInfo *info,
                                                           const VkAllocationCallbacks *alloc,
                                                           VkDeviceMemory *memory)
{
    next_table *t = table_of(device);
    pthread_mutex_lock(&lock);
    bool fail = ++nallocs == fault_alloc;
    pthread_mutex_unlock(&lock);
    return fail ? VK_ERROR_OUT_OF_DEVICE_MEMORY : t->allocate_memory(device, info, alloc, memory);
}

/* Whether this submission finds the device lost. At the loss the work already submitted runs
 * to its end (a real lost device runs nothing more, but this one would go on while vkfx frees
 * the resources that work uses): later waits tell finished work from the rest by the
 * semaphores' values. */
static bool submit_lost(next_table *t)
{
    pthread_mutex_lock(&lock);
    bool now = !lost && fault_lost && ++nsubmits >= fault_lost;
    lost = lost || now;
    bool was = lost;
    pthread_mutex_unlock(&lock);
    if (now)
        t->device_wait_idle(t->device);
    return was;
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_QueueSubmit(VkQueue queue, uint32_t count,
                                                        const VkSubmitInfo *submits, VkFence fence)
{
    next_table *t = table_of(queue);
    return submit_lost(t) ? VK_ERROR_DEVICE_LOST : t->queue_submit(queue, count, submits, fence);
}

static VKAPI_ATTR VkResult VKAPI_CALL fault_QueueSubmit2(VkQueue queue, uint32_t count,
                                                         const VkSubmitInfo2 *submits,
                                                         VkFence fence)
{
    next_table *t = table_of(queue);
    return submit_lost(t) ? VK_ERROR_DEVICE_LOST : t->queue_submit2(queue, count, submits, fence);
}

/* After the loss nothing more runs: a wait succeeds only for values already reached. */
static VKAPI_ATTR VkResult VKAPI_CALL fault_WaitSemaphores(VkDevice device,
                                                           const VkSemaphoreWaitInfo *info,
                                                           uint64_t timeout)
{
    next_table *t = table_of(device);
    pthread_mutex_lock(&lock);
    bool was = lost;
    pthread_mutex_unlock(&lock);
    if (!was)
        return t->wait_semaphores(device, info, timeout);
    bool any = info->flags & VK_SEMAPHORE_WAIT_ANY_BIT;
    uint32_t reached = 0;
    for (uint32_t i = 0; i < info->semaphoreCount; i++) {
        uint64_t value = 0;
        VkResult r = t->semaphore_value(device, info->pSemaphores[i], &value);
        if (r != VK_SUCCESS)
            return r;
        reached += value >= info->pValues[i];
    }
    return (any ? reached > 0 : reached == info->semaphoreCount) ? VK_SUCCESS
                                                                 : VK_ERROR_DEVICE_LOST;
}

static PFN_vkVoidFunction own_device_function(const char *name)
{
    static const struct {
        const char *name;
        PFN_vkVoidFunction fn;
    } own[] = {
        {"vkDestroyDevice", (PFN_vkVoidFunction)fault_DestroyDevice},
        {"vkAllocateMemory", (PFN_vkVoidFunction)fault_AllocateMemory},
        {"vkQueueSubmit", (PFN_vkVoidFunction)fault_QueueSubmit},
        {"vkQueueSubmit2", (PFN_vkVoidFunction)fault_QueueSubmit2},
        {"vkQueueSubmit2KHR", (PFN_vkVoidFunction)fault_QueueSubmit2},
        {"vkWaitSemaphores", (PFN_vkVoidFunction)fault_WaitSemaphores},
        {"vkWaitSemaphoresKHR", (PFN_vkVoidFunction)fault_WaitSemaphores},
    };
    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
        if (!strcmp(name, own[i].name))
            return own[i].fn;
    return NULL;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device,
                                                                    const char *name)
{
    if (!strcmp(name, "vkGetDeviceProcAddr"))
        return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
    PFN_vkVoidFunction own = own_device_function(name);
    return own ? own : table_of(device)->gdpa(device, name);
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance,
                                                                      const char *name)
{
    if (!strcmp(name, "vkGetInstanceProcAddr"))
        return (PFN_vkVoidFunction)vkGetInstanceProcAddr;
    if (!strcmp(name, "vkGetDeviceProcAddr"))
        return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
    if (!strcmp(name, "vkCreateInstance"))
        return (PFN_vkVoidFunction)fault_CreateInstance;
    if (!strcmp(name, "vkDestroyInstance"))
        return (PFN_vkVoidFunction)fault_DestroyInstance;
    if (!strcmp(name, "vkCreateDevice"))
        return (PFN_vkVoidFunction)fault_CreateDevice;
    PFN_vkVoidFunction own = own_device_function(name);
    if (own)
        return own;
    return instance ? table_of(instance)->gipa(instance, name) : NULL;
}
